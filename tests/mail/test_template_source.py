"""A template written as one generated Python function (fastrender.compile_source) writes what
Django writes, byte for byte, where its quick lookups meet what they do not handle themselves:
a callable, a dict without the key (Django then looks for an attribute), an attribute that
raises, a missing step in a dotted name, an int with thousands' separators on, a string
marked safe, nested loops and their counters; and a template Python refuses (blocks nested
too deep) is rendered by the closures instead."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.template import Context, Engine
from django.utils.safestring import mark_safe

from pbem.mail import fastrender

ENGINE = Engine(libraries={"i18n": "django.templatetags.i18n"})


class Raising:
    @property
    def broken(self):
        raise TypeError("a property that fails")

    @property
    def missing(self):
        raise AttributeError("not here")


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return f"called {self.calls}"


def context() -> dict:
    return {
        "name": "Ann & <Bob>",
        "safe": mark_safe("<b>kept</b>"),
        "number": 1234567,
        "flag": True,
        "nothing": None,
        "call": Counter(),
        "data": {"key": "value <x>", "number": 7, "nested": {"deep": "down"}},
        "object": SimpleNamespace(title="T & T", pk=12, inner=SimpleNamespace(name="in"), none=None),
        "raising": Raising(),
        "rows": [SimpleNamespace(code=1, line="a<b", link="x&y"), SimpleNamespace(code=2, line="c", link="")],
        "pairs": [("one", 1), ("two", 2)],
        "groups": [["a", "b"], [], ["c"]],
    }


TEMPLATES = [
    "{{ name }}|{{ safe }}|{{ number }}|{{ flag }}|{{ nothing }}|{{ missing }}|{{ call }}|{{ call }}",
    "{{ data.key }}|{{ data.number }}|{{ data.nested.deep }}|{{ data.items }}|{{ data.absent }}|{{ data.keys }}",
    "{{ object.title }}|{{ object.pk }}|{{ object.inner.name }}|{{ object.none.name }}|{{ object.absent }}",
    "{{ raising.broken }}|{{ raising.missing }}|{{ missing.anything.at.all }}",
    "{% if object.inner.name %}yes{% else %}no{% endif %}{% if object.none.name %}1{% elif data.key %}2{% endif %}",
    "{% if call %}{{ call }}{% endif %}{% if missing %}m{% endif %}{% if nothing %}n{% else %}not{% endif %}",
    "{% if raising.broken %}b{% else %}nb{% endif %}{% if flag and not nothing %}and{% endif %}",
    "{% for r in rows %}{{ forloop.counter }}/{{ forloop.revcounter }} {{ r.code }} {{ r.line }}"
    "{% if r.link %} <{{ r.link }}>{% endif %}{% if not forloop.last %}, {% endif %}{% endfor %}",
    "{% for word, n in pairs %}{{ word }}={{ n }};{% endfor %}{% for g in groups %}[{% for x in g %}"
    "{{ forloop.parentloop.counter }}.{{ forloop.counter }}{{ x }}{% empty %}none{% endfor %}]{% endfor %}",
    "{% for r in rows reversed %}{{ r.line }}{% endfor %}{% for x in missing %}x{% empty %}empty{% endfor %}",
    "{% autoescape off %}{{ name }}|{{ data.key }}|{{ number }}{% endautoescape %}",
    '{% load i18n %}{% get_current_language as L %}{{ L }}{{ name|lower }}{{ number|stringformat:"3d" }}',
]


def outcome(render) -> tuple:
    """What a rendering wrote, or the kind of exception it raised (Django raises some)."""
    try:
        return ("wrote", render(context()))
    except Exception as error:  # noqa: BLE001 - compared, not handled
        return ("raised", type(error), str(error))


@pytest.mark.parametrize("source", TEMPLATES)
@pytest.mark.parametrize("thousands", [False, True])
def test_the_generated_function_writes_what_django_writes(source, thousands, settings):
    settings.USE_THOUSAND_SEPARATOR = thousands
    template = ENGINE.from_string(source)
    expected = outcome(lambda c: template.render(Context(c)))
    assert outcome(fastrender.compile_source(template)) == expected
    assert outcome(fastrender.compile_closures(template)) == expected


def test_an_attribute_that_raises_raises_as_in_django_and_one_not_there_is_empty():
    broken = ENGINE.from_string("{{ raising.broken }}")
    assert outcome(fastrender.compile_source(broken))[:2] == ("raised", TypeError)
    missing = ENGINE.from_string("[{{ object.absent }}|{{ missing.anything.at.all }}]")
    assert outcome(fastrender.compile_source(missing)) == ("wrote", "[|]")


def test_a_callable_found_by_the_quick_way_is_called_once_as_django_calls_it():
    template = ENGINE.from_string("{{ call }} {% if call %}{{ call }}{% endif %}")
    ours, theirs = context(), context()
    assert fastrender.compile_source(template)(ours) == template.render(Context(theirs))
    assert ours["call"].calls == theirs["call"].calls == 3


def test_a_template_nested_deeper_than_python_allows_is_rendered_by_the_closures():
    depth = 25  # Python takes 20 loops nested in one function
    source = "".join(f"{{% for x{i} in one %}}{i}" for i in range(depth)) + "{% endfor %}" * depth
    template = ENGINE.from_string(source)
    with pytest.raises(fastrender.Unsupported):
        fastrender.compile_source(template)
    assert fastrender.compile_template(template)({"one": [1]}) == template.render(Context({"one": [1]}))
