"""Notice templates rendered without Django's template engine at rendering (issue 34).

The notice templates stay Django templates (one copy of each text, translated by the catalogues
as every template is). Each is parsed by Django once per language (outbound.notice_template,
its translations already put in) and its node tree is turned here, once, into Python closures
that do what the nodes do: the text, the variables with their filters and escaping, `if`, `for`,
`include`, `extends` and `block`, `autoescape`. Rendering a notice then runs those closures over
a plain dict, without Django's Context, its node dispatch and its variable parsing per render (a
notice renders four templates and their includes; that was a third of its composing).

The rules are Django's own, copied where they decide the output: a variable is looked up as a
key, an attribute, an index, in that order, and called when callable; a missing one is "" in
output and None in a condition (a filter still runs on it); a condition that raises is false;
output is localised and, with autoescape on, escaped unless marked safe. A node of any other
kind (a translation left to be made at rendering, a tag this does not know) is rendered by
Django itself, with a Context made of the variables as they stand there. The output is the same,
byte for byte: tests/mail/test_notice_templates.py compares every notice template in every
language, and tests/mail/test_fast_notices.py whole notices of every game.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.template import Context
from django.template.base import Node, TextNode, Variable, VariableDoesNotExist, VariableNode
from django.template.defaulttags import AutoEscapeControlNode, CommentNode, ForNode, IfNode, LoadNode, TemplateLiteral
from django.template.loader_tags import BlockNode, ExtendsNode, IncludeNode
from django.templatetags.i18n import GetCurrentLanguageNode
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, mark_safe
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]
from django.utils.translation import get_language

Render = Callable[[dict], str]
Value = Callable[[dict], Any]
BUILTINS = {"True": True, "False": False, "None": None}  # what every Django Context holds


class Unsupported(Exception):
    """A construct this does not compile: the node is left to Django."""


def compile_template(template) -> Render:
    """A function of a dict of variables that writes what `template.render(Context(dict))` writes
    (`template`: a django.template.base.Template, autoescape on as Context's default)."""
    body = _nodelist(template.nodelist, _Scope(template, autoescape=True, blocks={}))

    def render(context: dict) -> str:
        return body({**BUILTINS, **context})

    return render


class _Scope:
    """What compiling a node needs to know: the template it came from (for its engine and for
    Django's own rendering of what is not compiled), autoescape there, the blocks in force."""

    def __init__(self, template, autoescape: bool, blocks: dict) -> None:
        self.template, self.autoescape, self.blocks = template, autoescape, blocks
        engine = template.engine
        if engine.string_if_invalid:
            raise Unsupported("string_if_invalid")  # the engine's notices have none; else Django's way

    def but(self, **changes) -> _Scope:
        scope = _Scope.__new__(_Scope)
        scope.__dict__.update(self.__dict__, **changes)
        return scope


def _nodelist(nodes: Any, scope: _Scope) -> Render:
    parts: list[Render | str] = []
    for node in nodes:
        part = _node(node, scope)
        if isinstance(part, str) and parts and isinstance(parts[-1], str):
            parts[-1] += part
        elif part != "":
            parts.append(part)
    if not parts:
        return lambda c: ""
    if len(parts) == 1:
        only = parts[0]
        return (lambda c: only) if isinstance(only, str) else only
    if len(parts) == 2:  # most bodies of an `if` or a `for`: a text and a variable, or the reverse
        first, second = parts
        if isinstance(first, str):
            return lambda c: first + second(c)  # type: ignore[operator]
        if isinstance(second, str):
            return lambda c: first(c) + second
    # The texts stay in the list as they are: a call a text would cost more than the look at its type.
    return lambda c: "".join([p if p.__class__ is str else p(c) for p in parts])  # type: ignore[operator]


def _node(node: Any, scope: _Scope) -> Render | str:
    """A node as a constant text or a function of the variables."""
    try:
        kind = type(node)
        if kind is TextNode:
            return node.s
        if kind in (LoadNode, CommentNode):
            return ""
        if kind is VariableNode:
            return _variable_node(node, scope)
        if kind is IfNode:
            return _if(node, scope)
        if kind is ForNode:
            return _for(node, scope)
        if kind is AutoEscapeControlNode:
            return _nodelist(node.nodelist, scope.but(autoescape=node.setting))
        if kind is IncludeNode:
            return _include(node, scope)
        if kind is ExtendsNode:
            return _extends(node, scope)
        if kind is BlockNode:
            chosen = scope.blocks.get(node.name, node)
            return _scoped(_nodelist(chosen.nodelist, scope))
        if kind is GetCurrentLanguageNode:
            return _current_language(node.variable)
    except Unsupported:
        pass
    return _by_django(node, scope)


def _by_django(node: Node, scope: _Scope) -> Render:
    template, autoescape = scope.template, scope.autoescape

    def render(c: dict) -> str:
        context = Context(c, autoescape=autoescape)  # what it sets (`asvar`) is seen after it, as in Django
        with context.bind_template(template):
            return node.render(context)

    return render


def _current_language(name: str) -> Render:
    def render(c: dict) -> str:
        c[name] = get_language()
        return ""

    return render


def _constant_name(expression) -> str:
    if expression.filters or expression.is_var or not isinstance(expression.var, str):
        raise Unsupported("a template named by a variable")
    name = str(expression.var)
    if name.startswith("."):
        raise Unsupported("a relative template name")
    return name


def _include(node: IncludeNode, scope: _Scope) -> Render:
    if node.extra_context or node.isolated_context:
        raise Unsupported("include with values")
    included = scope.template.engine.get_template(_constant_name(node.template))
    # An included template renders with the including one's autoescape, its own blocks.
    return _scoped(_nodelist(included.nodelist, scope.but(template=included, blocks={})))


def _extends(node: ExtendsNode, scope: _Scope) -> Render:
    parent = scope.template.engine.get_template(_constant_name(node.parent_name))
    if any(type(n) is ExtendsNode for n in parent.nodelist):
        raise Unsupported("more than one level of extends")
    blocks = {**{b.name: b for b in parent.nodelist.get_nodes_by_type(BlockNode)}, **node.blocks}
    return _as_render(_nodelist(parent.nodelist, scope.but(template=parent, blocks=blocks)))


def _scoped(part: Render | str) -> Render:
    """A block or an included template: what it sets is its own (Django pushes a scope for it)."""
    if isinstance(part, str):
        return lambda c: part
    return lambda c: part(dict(c))


def _as_render(part: Render | str) -> Render:
    return (lambda c: part) if isinstance(part, str) else part


# --- variables --------------------------------------------------------------------------------


def _variable_node(node: VariableNode, scope: _Scope) -> Render:
    value = _expression(node.filter_expression, scope.autoescape, ignore_failures=False)
    if scope.autoescape:

        def render(c: dict) -> str:
            shown = value(c)
            if type(shown) is str:
                return html.escape(shown)  # what conditional_escape makes of a str not marked safe
            if type(shown) is int and not settings.USE_THOUSAND_SEPARATOR:
                return str(shown)  # what localize makes of it then (numberformat.format)
            shown = localize(template_localtime(shown))
            return conditional_escape(shown if isinstance(shown, str) else str(shown))

    else:

        def render(c: dict) -> str:
            shown = value(c)
            if type(shown) is str:
                return shown
            if type(shown) is int and not settings.USE_THOUSAND_SEPARATOR:
                return str(shown)
            return str(localize(template_localtime(shown)))

    return render


def _expression(expression, autoescape: bool, ignore_failures: bool) -> Value:
    """FilterExpression.resolve: the variable (or literal), then each filter."""
    if expression.is_var:
        variable = _variable(expression.var, None if ignore_failures else "")
        start = variable

    else:
        literal = expression.var

        def start(c: dict):
            return literal

    if not expression.filters:
        return start
    filters = [_filter(func, args, autoescape) for func, args in expression.filters]

    def resolve(c: dict):
        value = start(c)
        for apply in filters:
            value = apply(value, c)
        return value

    return resolve


def _filter(func, args, autoescape: bool) -> Callable[[Any, dict], Any]:
    arguments: list[Value] = []
    for lookup, arg in args:
        if not lookup:
            arguments.append(_constant(mark_safe(arg)))
        else:
            arguments.append(_variable(arg))
    localtime = getattr(func, "expects_localtime", False)
    escaping = getattr(func, "needs_autoescape", False)
    safe = getattr(func, "is_safe", False)

    def apply(value, c: dict):
        values = [argument(c) for argument in arguments]
        if localtime:
            value = template_localtime(value)
        made = func(value, *values, autoescape=autoescape) if escaping else func(value, *values)
        return mark_safe(made) if safe and isinstance(value, SafeData) else made

    return apply


def _constant(value) -> Value:
    return lambda c: value


_RAISE = object()  # _variable's `missing` that raises VariableDoesNotExist, as Variable.resolve does


def _variable(variable: Variable, missing: Any = _RAISE) -> Value:
    """Variable.resolve over a dict: raises VariableDoesNotExist where Django's does, or gives
    `missing` then (what FilterExpression.resolve makes of it: "" in output, None in a condition)."""
    if variable.translate or variable.message_context:
        raise Unsupported("a translated literal")
    if variable.lookups is None:
        literal = variable.literal
        return lambda c: literal
    first, rest = variable.lookups[0], variable.lookups[1:]

    def resolve(c: dict):
        try:
            current = c[first]
        except KeyError:
            if missing is _RAISE:
                raise VariableDoesNotExist("Failed lookup for key [%s]", (first,)) from None
            return missing
        if not rest and not callable(current):
            return current  # most lookups: a name, its value
        try:
            if callable(current):
                current = _called(current)
            for bit in rest:
                current = _step(current, bit)
                if callable(current):
                    current = _called(current)
        except VariableDoesNotExist:
            if missing is _RAISE:
                raise
            return missing
        except Exception as error:
            if getattr(error, "silent_variable_failure", False):
                return ""
            raise
        return current

    return resolve


def _step(current, bit: str):
    """One lookup of Variable._resolve_lookup: a key, else an attribute, else an index."""
    try:
        if not hasattr(type(current), "__getitem__"):
            raise TypeError
        return current[bit]
    except (TypeError, AttributeError, KeyError, ValueError, IndexError):
        try:
            return getattr(current, bit)
        except (TypeError, AttributeError):
            if bit in dir(current):
                raise
            try:
                return current[int(bit)]
            except (IndexError, ValueError, KeyError, TypeError):
                raise VariableDoesNotExist("Failed lookup for key [%s] in %r", (bit, current)) from None


def _called(current):
    """What Variable._resolve_lookup makes of a callable it found."""
    if getattr(current, "do_not_call_in_templates", False):
        return current
    if getattr(current, "alters_data", False):
        return ""
    try:
        return current()
    except TypeError:
        from inspect import signature

        try:
            found = signature(current)
        except ValueError:
            return ""
        try:
            found.bind()
        except TypeError:
            return ""
        raise


# --- if and for -------------------------------------------------------------------------------


def _if(node: IfNode, scope: _Scope) -> Render:
    branches = [
        (None if condition is None else _condition(condition, scope.autoescape), _as_render(_nodelist(body, scope)))
        for condition, body in node.conditions_nodelists
    ]

    def render(c: dict) -> str:
        for condition, body in branches:
            if condition is None:
                return body(c)
            try:
                match = condition(c)
            except VariableDoesNotExist:
                match = None
            if match:
                return body(c)
        return ""

    return render


_INFIX: dict[str, Callable[[Value, Value, dict], Any]] = {
    "or": lambda x, y, c: x(c) or y(c),
    "and": lambda x, y, c: x(c) and y(c),
    "in": lambda x, y, c: x(c) in y(c),
    "not in": lambda x, y, c: x(c) not in y(c),
    "is": lambda x, y, c: x(c) is y(c),
    "is not": lambda x, y, c: x(c) is not y(c),
    "==": lambda x, y, c: x(c) == y(c),
    "!=": lambda x, y, c: x(c) != y(c),
    ">": lambda x, y, c: x(c) > y(c),
    ">=": lambda x, y, c: x(c) >= y(c),
    "<": lambda x, y, c: x(c) < y(c),
    "<=": lambda x, y, c: x(c) <= y(c),
}


def _condition(condition, autoescape: bool) -> Value:
    """A condition of `if` as smartif evaluates it (an operator that raises is false)."""
    if isinstance(condition, TemplateLiteral):
        return _expression(condition.value, autoescape, ignore_failures=True)
    operator = getattr(condition, "id", None)
    if operator == "not":
        first = _condition(condition.first, autoescape)

        def negated(c: dict):
            try:
                return not first(c)
            except Exception:  # noqa: BLE001 - smartif's rule: a condition that raises is false
                return False

        return negated
    if operator not in _INFIX:
        raise Unsupported(f"operator {operator!r}")
    how = _INFIX[operator]
    x, y = _condition(condition.first, autoescape), _condition(condition.second, autoescape)

    def infix(c: dict):
        try:
            return how(x, y, c)
        except Exception:  # noqa: BLE001 - smartif's rule
            return False

    return infix


def _for(node: ForNode, scope: _Scope) -> Render:
    sequence = _expression(node.sequence, scope.autoescape, ignore_failures=True)
    body, empty = _as_render(_nodelist(node.nodelist_loop, scope)), _as_render(_nodelist(node.nodelist_empty, scope))
    names, backwards = list(node.loopvars), node.is_reversed
    unpack = len(names) > 1

    def render(c: dict) -> str:
        values = sequence(c)
        if values is None:
            values = []
        if not hasattr(values, "__len__"):
            values = list(values)
        count = len(values)
        if count < 1:
            return empty(c)
        loop: dict = {"parentloop": c.get("forloop", {})}
        inner = {**c, "forloop": loop}
        out = []
        for i, item in enumerate(reversed(values) if backwards else values):
            loop.update(
                counter0=i,
                counter=i + 1,
                revcounter=count - i,
                revcounter0=count - i - 1,
                first=i == 0,
                last=i == count - 1,
            )
            if unpack:
                try:
                    size = len(item)
                except TypeError:
                    size = 1
                if size != len(names):
                    raise ValueError(f"Need {len(names)} values to unpack in for loop; got {size}. ")
                inner.update(zip(names, item))
            else:
                inner[names[0]] = item
            out.append(body(inner))
        return "".join(out)

    return render
