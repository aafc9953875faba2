"""Index builds shared out between two connections (ratings.category_tables): halves of about equal cost."""

from hypothesis import given
from hypothesis import strategies as st

from ratings.category_tables import _index_cost, _shared_out


def test_a_trigram_index_costs_more_than_a_btree_over_as_many_rows():
    gin = "CREATE INDEX x ON t USING gin (fold_name((name)::text) gin_trgm_ops)"
    btree = "CREATE INDEX y ON t USING btree (category_id, ranked, rating DESC, name)"
    assert _index_cost(gin) > _index_cost(btree) == 1
    assert _index_cost("CREATE INDEX z ON t (seq)") == 1  # no method named: a b-tree


def test_the_dearest_index_goes_alone_when_it_costs_as_much_as_the_rest():
    here, there = _shared_out([(6.0, "gin"), (1.0, "a"), (2.0, "b"), (3.0, "c")])
    assert sorted([here, there]) == [["c", "b", "a"], ["gin"]]


@given(st.lists(st.floats(min_value=0, max_value=1e7, allow_nan=False), max_size=30))
def test_every_statement_goes_to_one_side_and_the_sides_differ_by_at_most_the_dearest(costs):
    work = [(cost, f"statement {number}") for number, cost in enumerate(costs)]
    here, there = _shared_out(work)

    assert sorted(here + there) == sorted(statement for _, statement in work)
    cost_of = {statement: cost for cost, statement in work}
    difference = abs(sum(cost_of[each] for each in here) - sum(cost_of[each] for each in there))
    assert difference <= max(costs, default=0) + 1e-6 * sum(costs)
