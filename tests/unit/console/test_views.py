"""Templates and assets come from the package (importlib.resources) and escape what they print."""

from __future__ import annotations

from engine.console.views import environment, heat, load_assets, render, shown_path


def test_assets_are_package_data_with_their_types() -> None:
    assets = load_assets()
    assert set(assets) == {"console.css", "console.js", "favicon.svg"}
    assert assets["console.js"][1].startswith("text/javascript")
    assert b"EventSource" in assets["console.js"][0]


def test_templates_escape_every_value() -> None:
    env = environment()
    template = env.from_string("<p>{{ text }}</p><p>{{ trusted_svg(svg) }}</p>")
    html = template.render(text="<script>x()</script>", svg="<svg><title>ok</title></svg>")
    assert html == "<p>&lt;script&gt;x()&lt;/script&gt;</p><p><svg><title>ok</title></svg></p>"
    assert {"base.html", "topology.html", "playground.html", "records.html", "record.html",
            "eval.html"} <= set(env.list_templates())
    assert render(env, "error.html", {"error": "<b>", "config": {"name": "n"}, "version": "v",
                                      "path": "/"}).count("&lt;b&gt;") == 1


def test_issue_files_are_shown_from_the_folder_above_the_set() -> None:
    assert shown_path("/srv/configs/banking/routing.yaml", "/srv/configs") == \
        "banking/routing.yaml"
    assert shown_path("/elsewhere/x.yaml", "/srv/configs") == "/elsewhere/x.yaml"
    assert shown_path("", "/srv") == ""


def test_confusion_cells_are_shaded_by_count() -> None:
    assert [heat(n, 100) for n in (0, 1, 30, 60, 100)] == \
        ["heat-0", "heat-1", "heat-1", "heat-2", "heat-4"]
    assert heat(3, 0) == "heat-0"
