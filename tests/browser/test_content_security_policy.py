"""The pages with the most script and style, in a real Chromium under the site's Content-Security-Policy.

The `page` fixture fails a test when the browser refuses anything under the
policy; these visits cover what the other browser tests don't: the admin
site's forms with their widgets and the API's documentation pages.
"""

from playwright.sync_api import expect

from tests.factories import PASSWORD


def test_the_admin_site_and_the_api_documentation_work_under_the_policy(page, superuser):
    page.goto("/admin/login/")
    page.get_by_label("Username").fill(superuser.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="Log out").or_(page.get_by_role("button", name="Log out"))).to_be_visible()

    for address in ["/admin/auth/user/add/", "/admin/events/event/add/", "/admin/events/match/"]:
        response = page.goto(address)
        assert response.status == 200, address
        page.wait_for_load_state("networkidle")

    assert page.goto("/api/docs/").status == 200
    page.goto("/api/docs/swagger/")
    expect(page.locator("#swagger-ui .info")).to_be_visible()  # drawn by its scripts, which the policy let run
