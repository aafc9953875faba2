from django.shortcuts import render

from calculator.forms import CalculatorForm
from ratings.engine.calculator import event_calculation, win_probability_table

TABLE_STEP, TABLE_UP_TO = 25, 1000


def calculator(request):
    """A GET form, so that a calculation is a link one can share."""
    form = CalculatorForm.from_query(request.GET)
    calculation = nearest_difference = None
    if form.is_valid():
        data = form.cleaned_data
        calculation = event_calculation(
            data["rating"],
            data["k"],
            data["opponents"],
            data["rules"],
            small_event=data["small_event"],
            level2_judge=not data["no_judge"],
        )
        # The table row the quick estimate reads from.
        nearest_difference = round(abs(calculation.estimate.average_difference) / TABLE_STEP) * TABLE_STEP
    table = win_probability_table(step=TABLE_STEP, up_to=TABLE_UP_TO)
    middle = (len(table) + 1) // 2
    return render(
        request,
        "calculator/calculator.html",
        {
            "form": form,
            "calculation": calculation,
            "nearest_difference": nearest_difference,
            "win_probability_halves": [table[:middle], table[middle:]],
        },
    )
