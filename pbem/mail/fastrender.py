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
    (`template`: a django.template.base.Template, autoescape on as Context's default): one
    generated Python function (compile_source), or where Python refuses its source, the closures."""
    try:
        return compile_source(template)
    except Unsupported:
        return compile_closures(template)


def compile_closures(template) -> Render:
    """compile_template by closures, one a node (the generated function's fallback and parts)."""
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
                inner.update(_unpacked(item, names))
            else:
                inner[names[0]] = item
            out.append(body(inner))
        return "".join(out)

    return render


# --- a template as one Python function ----------------------------------------------------------
#
# The closures above cost a call for every node and every variable of a notice (a notice's four
# templates are some three hundred). The same nodes are also written out as the source of one
# Python function a template (compiled by Python once): its texts appended as constants, its
# `if` and `for` Python's own, a variable holding a plain str written (escaped, with autoescape
# on) where it is found; anything else (a lookup with dots, a filter, a callable, a value that is
# not a str, a condition that is not one name, a node of another kind) goes through the closure
# above that writes it, so the rules stay those closures' (Django's). Where Python refuses the
# source (blocks nested too deep), the closures render the template.


def compile_source(template) -> Render:
    """What compile_template returns, as one generated function (see above)."""
    writer = _Writer()
    writer.nodelist(template.nodelist, _Scope(template, autoescape=True, blocks={}), "c", 1)
    # Whether ints are written with thousands' separators, read once a rendering (settings is a
    # lazy object: each attribute read is a call).
    start = "def body(c):\n    _o = []\n    _a = _o.append\n    _thousands = _settings.USE_THOUSAND_SEPARATOR\n"
    source = start + "".join(writer.lines) + '    return "".join(_o)\n'
    namespace = dict(writer.constants, _escape=html.escape, _dict=dict, _settings=settings)
    try:
        exec(compile(source, f"<notice template {template.origin.name}>", "exec"), namespace)  # noqa: S102 - our own source
    except (SyntaxError, RecursionError, MemoryError) as error:
        raise Unsupported(f"the generated source: {error}") from error
    body = namespace["body"]

    def render(context: dict) -> str:
        return body({**BUILTINS, **context})

    render.source = source  # type: ignore[attr-defined]
    return render


class _Writer:
    """The lines of the generated function; `constants`: the closures and values they name."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.constants: dict[str, Any] = {}
        self.count = 0
        self.writes = False  # whether a node written since it was cleared may set a variable

    def name(self, prefix: str, value: Any = None, constant: bool = False) -> str:
        self.count += 1
        name = f"_{prefix}{self.count}"
        if constant:
            self.constants[name] = value
        return name

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text + "\n")

    def nodelist(self, nodes: Any, scope: _Scope, c: str, depth: int) -> None:
        text: list[str] = []
        for node in nodes:
            if type(node) is TextNode:
                text.append(node.s)
                continue
            if type(node) in (LoadNode, CommentNode):
                continue
            self.text("".join(text), depth)
            text = []
            self.node(node, scope, c, depth)
        self.text("".join(text), depth)

    def text(self, text: str, depth: int) -> None:
        if text:
            self.line(depth, f"_a({text!r})")

    def node(self, node: Any, scope: _Scope, c: str, depth: int) -> None:
        kind = type(node)
        try:
            if kind is VariableNode:
                return self.variable(node, scope, c, depth)
            if kind is IfNode:
                return self.branches(node, scope, c, depth)
            if kind is ForNode:
                return self.loop(node, scope, c, depth)
            if kind is AutoEscapeControlNode:
                return self.nodelist(node.nodelist, scope.but(autoescape=node.setting), c, depth)
            if kind is IncludeNode:
                if node.extra_context or node.isolated_context:
                    raise Unsupported("include with values")
                included = scope.template.engine.get_template(_constant_name(node.template))
                return self.scoped(included.nodelist, scope.but(template=included, blocks={}), c, depth)
            if kind is ExtendsNode:
                return self.extends(node, scope, c, depth)
            if kind is BlockNode:
                return self.scoped(scope.blocks.get(node.name, node).nodelist, scope, c, depth)
        except Unsupported:
            pass
        self.writes = True  # a node rendered by a closure of its own may set a variable (`as`)
        part = _node(node, scope)
        if isinstance(part, str):
            return self.text(part, depth)
        self.line(depth, f"_a({self.name('n', part, constant=True)}({c}))")

    def scoped(self, nodes: Any, scope: _Scope, c: str, depth: int) -> None:
        """A block or an included template: what it sets is its own (a copy of the variables,
        made only where something in it may set one)."""
        inner, before, mark = self.name("c"), self.writes, len(self.lines)
        self.writes = False
        self.nodelist(nodes, scope, inner, depth)
        self.lines.insert(mark, "    " * depth + f"{inner} = {'_dict(' + c + ')' if self.writes else c}\n")
        self.writes = before or self.writes

    def extends(self, node: ExtendsNode, scope: _Scope, c: str, depth: int) -> None:
        parent = scope.template.engine.get_template(_constant_name(node.parent_name))
        if any(type(n) is ExtendsNode for n in parent.nodelist):
            raise Unsupported("more than one level of extends")
        blocks = {**{b.name: b for b in parent.nodelist.get_nodes_by_type(BlockNode)}, **node.blocks}
        self.nodelist(parent.nodelist, scope.but(template=parent, blocks=blocks), c, depth)

    def variable(self, node: VariableNode, scope: _Scope, c: str, depth: int) -> None:
        slow = self.name("v", _variable_node(node, scope), constant=True)
        if not self.lookup(node.filter_expression, c, depth):
            return self.line(depth, f"_a({slow}({c}))")
        shown = "_escape(_t)" if scope.autoescape else "_t"
        self.line(depth, f"if _t.__class__ is str: _a({shown})")
        # An int as localize writes it without thousands' separators (the closure's check).
        self.line(depth, "elif _t.__class__ is int and not _thousands: _a(str(_t))")
        self.line(depth, f"else: _a({slow}({c}))")

    def lookup(self, expression, c: str, depth: int) -> bool:
        """Writes the lines that set _t to what a variable of names and dots (no filter) finds
        the quick way (_step_quick), _FAIL where that is not sure; False for anything else."""
        names = _names(expression)
        if names is None:
            return False
        self.constants.update(_FAIL=_FAIL, _quick=_step_quick)
        self.line(depth, f"_t = {c}.get({names[0]!r}, _FAIL)")
        for bit in names[1:]:
            self.line(depth, f"_t = _quick(_t, {bit!r})")
        return True

    def condition(self, condition, scope: _Scope, c: str, depth: int) -> None:
        """Sets _t to what `if` tests (the condition's value, None where it raised
        VariableDoesNotExist, as _if has it)."""
        test = _condition(condition, scope.autoescape)
        name = self.name("f", test, constant=True)
        self.constants["_tested"] = _tested
        if isinstance(condition, TemplateLiteral) and self.lookup(condition.value, c, depth):
            # Found the quick way unless missing or to be called: then the closure's way.
            self.line(depth, f"if _t is _FAIL or callable(_t): _t = _tested({name}, {c})")
        else:
            self.line(depth, f"_t = _tested({name}, {c})")

    def branches(self, node: IfNode, scope: _Scope, c: str, depth: int) -> None:
        for condition, body in node.conditions_nodelists:
            if condition is None:
                self.nodelist(body, scope, c, depth)
                return
            self.condition(condition, scope, c, depth)
            self.line(depth, "if _t:")
            self.line(depth + 1, "pass")
            self.nodelist(body, scope, c, depth + 1)
            self.line(depth, "else:")
            self.line(depth + 1, "pass")
            depth += 1

    def loop(self, node: ForNode, scope: _Scope, c: str, depth: int) -> None:
        sequence = self.name("s", _expression(node.sequence, scope.autoescape, ignore_failures=True), constant=True)
        inner, values, loop, item, i, count = (self.name(p) for p in ("c", "values", "loop", "item", "i", "count"))
        names = list(node.loopvars)
        self.line(depth, f"{values} = {sequence}({c})")
        self.line(depth, f"if {values} is None: {values} = []")
        self.line(depth, f"if not hasattr({values}, '__len__'): {values} = list({values})")
        self.line(depth, f"if len({values}) < 1:")
        self.line(depth + 1, "pass")
        self.nodelist(node.nodelist_empty, scope, c, depth + 1)
        self.line(depth, "else:")
        depth += 1
        self.line(depth, f"{loop} = {{'parentloop': {c}.get('forloop', {{}})}}")
        self.line(depth, f"{inner} = {{**{c}, 'forloop': {loop}}}")
        self.line(depth, f"{count} = len({values})")
        order = f"reversed({values})" if node.is_reversed else values
        self.line(depth, f"for {i}, {item} in enumerate({order}):")
        depth += 1
        self.line(depth, f"{loop}.update(counter0={i}, counter={i} + 1, revcounter={count} - {i},")
        self.line(depth + 1, f"revcounter0={count} - {i} - 1, first={i} == 0, last={i} == {count} - 1)")
        if len(names) > 1:
            self.constants["_unpacked"] = _unpacked
            self.line(depth, f"{inner}.update(_unpacked({item}, {names!r}))")
        else:
            self.line(depth, f"{inner}[{names[0]!r}] = {item}")
        self.nodelist(node.nodelist_loop, scope, inner, depth)


def _names(expression) -> list[str] | None:
    """The names a variable looks up (`a.b.c`: a, b, c) when it has no filter, else None."""
    if not expression.is_var or expression.filters:
        return None
    variable = expression.var
    if variable.translate or variable.message_context or variable.lookups is None:
        return None
    return list(variable.lookups)


_FAIL = object()  # a lookup the quick way could not be sure of: the closure's way then


def _step_quick(current, bit: str):
    """One step of a lookup (_step) where it is plain: a key of a dict, else an attribute of an
    object that has no items and is not to be called; _FAIL for anything else (a callable, an
    object with items, a key or an attribute that is not there), for the closure to look up by
    every rule. A value found that is to be called is given as it is: the next step or the
    caller sends it to the closure."""
    if current is _FAIL or callable(current):
        return _FAIL
    kind = current.__class__
    if kind is dict:
        return current.get(bit, _FAIL)
    if hasattr(kind, "__getitem__"):
        return _FAIL
    try:
        return getattr(current, bit, _FAIL)
    except Exception:  # noqa: BLE001 - what Django makes of it is the closure's to say
        return _FAIL


def _tested(condition: Value, c: dict):
    """What _if makes of a condition: its value, None where a variable of it does not exist."""
    try:
        return condition(c)
    except VariableDoesNotExist:
        return None


def _unpacked(item, names: list[str]) -> zip:
    """A loop's item unpacked into its names, as _for does (and Django's ForNode)."""
    try:
        size = len(item)
    except TypeError:
        size = 1
    if size != len(names):
        raise ValueError(f"Need {len(names)} values to unpack in for loop; got {size}. ")
    return zip(names, item)
