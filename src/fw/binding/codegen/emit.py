"""Writing ``_fw_binders.py``: straight-line binder code from the planned dataclasses.

Each top-level type gets an async binder reading its sources; each nested dataclass a function
binding it from a decoded JSON/CBOR object; each composite type a converter. Regexes are compiled
once at import, enum values and defaults are literals, and nothing inspects annotations.

Inside a binder, a JSON or CBOR value is read as a typed value and everything else (query, path,
header, cookie, form and multipart values) as text. A binder whose body fields msgspec can decode
(:mod:`fw.binding.codegen.structs`) first decodes a JSON body into Structs in C, then runs the
same rule checks on values that already have their type ("decoded" values); the generic path
below it runs only when that decode fails.
"""

from __future__ import annotations

import pprint
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fw.binding.codegen.plan import FieldPlan, StructPlan, TypeRef
from fw.binding.codegen.rules import BY_NAME, TYPE_ERRORS
from fw.binding.codegen.structs import PRELUDE, JsonStructs
from fw.binding.registry import fingerprint
from fw.binding.values import INT_MAX, INT_MIN
from fw.codegen.naming import module_name
from fw.codegen.output import header

HEADER = header("the fw.parse calls and bound dataclasses of this package", "a bound dataclass") + (
    "# Plain untyped Python on purpose (fw.parse is what is typed): type checkers skip it.\n"
    "# mypy: ignore-errors\n"
)
_ZERO = {"str": '""', "int": "0", "float": "0.0", "bool": "False", "bytes": 'b""'}
_INVALID = TYPE_ERRORS
_FORMAT_CHECK = {
    "email": "is_email",
    "uuid": "is_uuid",
    "date": "is_date",
    "time": "is_time",
    "datetime": "is_datetime",
}
_MSGSPEC_IMPORTS = ["from msgspec import Meta, Struct", "from msgspec.json import Decoder"]
_LOCATION = {"input": "input", "query": "query", "payload": "payload", "path": "path",
             "header": "header", "cookie": "cookie", "method": "input", "rest": "payload"}  # fmt: skip


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def __call__(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    @contextmanager
    def block(self, head: str) -> Iterator[None]:
        self(head)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1


class _Module:
    """State shared while emitting one ``_fw_binders.py``: imports, constants, converter functions."""

    def __init__(self, cbor: bool) -> None:
        self.cbor = cbor
        self.classes: dict[type, str] = {}
        self.constants: list[str] = []
        self.struct_ids: dict[type, int] = {}
        self.decoded_ids: dict[type, int] = {}
        self.converters: dict[str, str] = {}
        self.functions: list[str] = []
        self.pattern_ids: dict[str, str] = {}
        self.constant_ids: dict[str, str] = {}
        self.json = JsonStructs()

    def cls(self, cls: type) -> str:
        """The module-level name of ``cls``: found by module and qualified name when the module is
        imported (:func:`fw.codegen.naming.declared`), so generated code imports no module it
        describes (a ``python -m`` main module would run twice)."""
        if cls not in self.classes:
            value = f"declared({module_name(cls.__module__)!r}, {cls.__qualname__!r})"
            self.classes[cls] = self._define(f"_T{len(self.classes)}", value)
        return self.classes[cls]

    def pattern(self, regex: str) -> str:
        if regex not in self.pattern_ids:
            self.pattern_ids[regex] = self._define(f"_P{len(self.pattern_ids)}", f"re.compile({regex!r})")
        return self.pattern_ids[regex]

    def constant(self, prefix: str, value: str) -> str:
        key = f"{prefix}:{value}"
        if key not in self.constant_ids:
            self.constant_ids[key] = self._define(f"{prefix}{len(self.constants)}", value)
        return self.constant_ids[key]

    def _define(self, name: str, value: str) -> str:
        """Emit the module-level constant ``name = value``; returns ``name``."""
        self.constants.append(f"{name} = {value}")
        return name

    def struct(self, plan: StructPlan) -> str:
        """Name of the function binding ``plan`` from a JSON/CBOR object (emitted once)."""
        return self._function_for(plan, self.struct_ids, "_s", _emit_struct)

    def decoded_struct(self, plan: StructPlan) -> str:
        """Name of the function binding ``plan`` from its decoded Struct (emitted once)."""
        return self._function_for(plan, self.decoded_ids, "_u", _emit_decoded_struct)

    def _function_for(
        self,
        plan: StructPlan,
        ids: dict[type, int],
        prefix: str,
        emit: Callable[[_Module, StructPlan, int], str],
    ) -> str:
        if plan.cls not in ids:
            ids[plan.cls] = len(ids)  # numbered before emitting, so a recursive type finds its name
            self.functions.append(emit(self, plan, ids[plan.cls]))
        return f"{prefix}{ids[plan.cls]}"

    def converter(self, ref: TypeRef) -> str:
        """Name of a function converting a decoded JSON/CBOR value to ``ref`` (composites only)."""
        key = ref.describe() + (f"@{id(ref.struct)}" if ref.struct else "")
        if key not in self.converters:
            name = f"_c{len(self.converters)}"
            self.converters[key] = name
            self.functions.append(_emit_converter(self, ref, name))
        return self.converters[key]


def _zero(module: _Module, ref: TypeRef, name: str, loc: str) -> str:
    if ref.optional or ref.kind == "file":
        return "None"
    if ref.kind == "scalar":
        return _ZERO[ref.scalar]
    if ref.kind == "list":
        return "[]"
    if ref.kind in ("dict", "rest"):
        return "{}"
    assert ref.struct is not None
    return f"{module.struct(ref.struct)}({{}}, {name} + '.', {loc}, errors)"


def _scalar_convert(scalar: str, mode: str, var: str = "v") -> str:
    """An expression converting ``var`` to ``scalar`` or :data:`BAD`; common JSON cases inlined."""
    typed = {
        "str": f"({var} if type({var}) is str else BAD)",
        "bool": f"({var} if type({var}) is bool else BAD)",
        "int": f"({var} if type({var}) is int and {INT_MIN} <= {var} <= {INT_MAX} else int_json({var}))",
        "float": f"float_json({var})",
        "bytes": f"bytes_json({var})",
    }[scalar]
    if mode == "text":
        return var if scalar == "str" else f"{scalar}_text({var})"
    return typed


def _checks(module: _Module, field: FieldPlan) -> list[tuple[str, str]]:
    checks: list[tuple[str, str]] = []
    string = field.type.scalar == "str"
    if field.required and string:
        checks.append(("not x", "required"))
    for rule in field.rules:
        # An int compared with an int literal skips the int-to-float comparison path.
        bound: float = rule.number
        if field.type.scalar == "int" and bound.is_integer():
            bound = int(bound)
        message = BY_NAME[rule.name].message_for(rule.text)
        if rule.name == "min":
            checks.append((f"x < {bound!r}", message))
        elif rule.name == "max":
            checks.append((f"x > {bound!r}", message))
        elif rule.name == "minlen":
            checks.append((f"len(x) < {rule.length}", message))
        elif rule.name == "maxlen":
            checks.append((f"len(x) > {rule.length}", message))
        elif rule.name == "len":
            checks.append((f"len(x) != {rule.length}", message))
        elif rule.name == "pattern":
            guard = "" if field.required else "x and "
            checks.append((f"{guard}{module.pattern(rule.text)}.search(x) is None", message))
        else:
            guard = "" if field.required else "x and "
            checks.append((f"{guard}not {_FORMAT_CHECK[rule.name]}(x)", message))
    if field.enum is not None:
        values = module.constant("_E", _frozen(field.enum))
        checks.append((f"x not in {values}", "must be one of: " + ", ".join(field.enum_text)))
    return checks


def _frozen(values: list[Any]) -> str:
    """A frozenset literal in a stable order, so generation output is reproducible."""
    return f"frozenset({tuple(sorted(values, key=repr))!r})"


def _absent(lines: _Lines, module: _Module, field: FieldPlan, target: str, name: str, loc: str) -> None:
    if field.required:
        lines(f"errors.append(FieldError({name}, {loc}, 'required'))")
    value = repr(field.default) if field.has_default else _zero(module, field.type, name, loc)
    lines(f"{target} = {value}")


def _emit_scalar(
    lines: _Lines,
    module: _Module,
    field: FieldPlan,
    target: str,
    name: str,
    loc: str,
    mode: str,
    absent_loc: str = "",
) -> None:
    """Code turning the value (``None`` when absent) into ``target``. ``mode`` says what it is: text
    in ``v`` (query, path, header, cookie, form), a typed JSON/CBOR value of any type in ``v``, or
    a "decoded" value in ``x`` that already has the field's type (base64 text for ``bytes``)."""
    scalar = field.type.scalar
    text, decoded = mode == "text", mode == "decoded"
    if text and scalar in ("int", "float", "bool"):
        absent = "v is None or v == ''"
    else:
        absent = "x is None" if decoded else "v is None"
    with lines.block(f"if {absent}:"):
        _absent(lines, module, field, target, name, absent_loc or loc)
    with lines.block("else:"):
        keyword = "elif"
        if decoded and scalar != "bytes":
            keyword = "if"
        elif scalar == "str":
            lines("x = v")
            if text:
                keyword = "if"
            else:  # the common JSON case needs no converter call and no sentinel
                with lines.block("if type(x) is not str:"):
                    lines(f"errors.append(FieldError({name}, {loc}, 'invalid string'))")
                    lines('x = ""')
        else:
            lines(f"x = {_scalar_convert(scalar, mode, 'x' if decoded else 'v')}")
            with lines.block("if x is BAD:"):
                lines(f"errors.append(FieldError({name}, {loc}, {_INVALID[scalar]!r}))")
                lines("x = " + _ZERO[scalar])
        for condition, message in _checks(module, field):
            with lines.block(f"{keyword} {condition}:"):
                lines(f"errors.append(FieldError({name}, {loc}, {message!r}))")
            keyword = "elif"
        lines(f"{target} = x")


def _emit_composite(
    lines: _Lines, module: _Module, field: FieldPlan, target: str, name: str, loc: str, decoded: bool = False
) -> None:
    """Code turning ``v`` (``None`` when absent) into a composite ``target``: a JSON/CBOR value of
    any shape, or (``decoded``) a Struct, list or dict that already has the field's shape."""
    with lines.block("if v is None:"):
        _absent(lines, module, field, target, name, loc)
    with lines.block("else:"):
        if decoded:
            lines(f"x = {_decoded_value(module, field.type, 'v', name, loc, 0)}")
        elif field.type.kind == "struct" and field.type.struct is not None:
            struct = module.struct(field.type.struct)
            lines(f"x = {struct}(v, {name} + '.', {loc}, errors) if type(v) is dict else BAD")
            with lines.block("if x is BAD:"):
                lines(f"errors.append(FieldError({name}, {loc}, 'invalid object'))")
            lines(f"{target} = x")
            return
        else:
            lines(f"x = {module.converter(field.type)}(v, {name}, {loc}, errors)")
        if field.required and field.type.kind in ("list", "dict"):
            with lines.block("if not x:" if decoded else "if x is not BAD and not x:"):
                lines(f"errors.append(FieldError({name}, {loc}, 'required'))")
        lines(f"{target} = x")


def _emit_text_list(lines: _Lines, field: FieldPlan, target: str, name: str, loc: str, source: str) -> None:
    """A list of scalars from repeated text keys (query or form); empty values are dropped."""
    item = field.type.item
    assert item is not None
    lines(f"l = {source}.get({field.wire!r})")
    if item.scalar == "str":
        lines("x = [s for s in l if s] if l else []")
    else:
        lines("x = []")
        with lines.block("if l:"), lines.block("for j, s in enumerate([s for s in l if s]):"):
            lines(f"y = {item.scalar}_text(s)")
            with lines.block("if y is BAD:"):
                lines(f"errors.append(FieldError({name} + f'[{{j}}]', {loc}, {_INVALID[item.scalar]!r}))")
            with lines.block("else:"):
                lines("x.append(y)")
    if field.required:
        with lines.block("if not x:"):
            lines(f"errors.append(FieldError({name}, {loc}, 'required'))")
    if field.type.optional:
        lines(f"{target} = x or None")  # only empty values: as absent
    else:
        lines(f"{target} = x")


def _emit_converter(module: _Module, ref: TypeRef, name: str) -> str:
    lines = _Lines()
    with lines.block(f"def {name}(v, path, loc, errors):"):
        if ref.kind == "struct":
            assert ref.struct is not None
            with lines.block("if type(v) is not dict:"):
                lines("errors.append(FieldError(path, loc, 'invalid object'))")
                lines("return BAD")
            lines(f"return {module.struct(ref.struct)}(v, path + '.', loc, errors)")
            return "\n".join(lines.lines)
        item = ref.item
        assert item is not None
        container = "list" if ref.kind == "list" else "dict"
        with lines.block(f"if type(v) is not {container}:"):
            message = "invalid array" if container == "list" else "invalid object"
            lines(f"errors.append(FieldError(path, loc, {message!r}))")
            lines("return BAD")
        lines("out = []" if container == "list" else "out = {}")
        if container == "list":
            loop, where, store = "for j, w in enumerate(v):", "f'{path}[{j}]'", "out.append(x)"
            prefix = "f'{path}[{j}].'"
        else:
            loop, where, store = "for j, w in v.items():", "f'{path}.{j}'", "out[j] = x"
            prefix = "f'{path}.{j}.'"
        with lines.block(loop):
            if container == "dict":
                with lines.block("if type(j) is not str:"):
                    lines("errors.append(FieldError(path, loc, 'invalid object'))")
                    lines("return BAD")
            if item.kind == "scalar":
                lines(f"x = {_scalar_convert(item.scalar, 'typed', 'w')}")
                with lines.block("if x is BAD:"):
                    lines(f"errors.append(FieldError({where}, loc, {_INVALID[item.scalar]!r}))")
                with lines.block("else:"):
                    lines(store)
            elif item.kind == "struct" and item.struct is not None:
                with lines.block("if type(w) is dict:"):
                    lines(store.replace("x", f"{module.struct(item.struct)}(w, {prefix}, loc, errors)"))
                with lines.block("else:"):
                    lines(f"errors.append(FieldError({where}, loc, 'invalid object'))")
            else:
                lines(f"x = {module.converter(item)}(w, {where}, loc, errors)")
                with lines.block("if x is not BAD:"):
                    lines(store)
        lines("return out")
    return "\n".join(lines.lines)


# Alike in shape to _emit_decoded_struct, on purpose: this binder reads a JSON/CBOR object by key
# (and knows files), that one a decoded Struct by attribute; they differ in each line of code they
# emit, and one function switching on the source at every line would read worse than two.
def _emit_struct(module: _Module, plan: StructPlan, number: int) -> str:
    lines = _Lines()
    cls = module.cls(plan.cls)
    with lines.block(f"def _s{number}(obj, path, loc, errors):"):
        for index, field in enumerate(plan.fields):
            target, name = f"f{index}", f"path + {field.wire!r}"
            lines(f"v = obj.get({field.wire!r})")
            if field.type.kind == "scalar":
                _emit_scalar(lines, module, field, target, name, "loc", "typed")
            elif field.type.kind == "file":
                lines(f"{target} = None")
            else:
                _emit_composite(lines, module, field, target, name, "loc")
        lines(f"return {_construct(cls, plan)}")
    return "\n".join(lines.lines)


def _construct(cls: str, plan: StructPlan) -> str:
    args = [f"{f.name}=f{i}" if f.kw_only else f"f{i}" for i, f in enumerate(plan.fields)]
    return f"{cls}({', '.join(args)})"


def _decoded_value(module: _Module, ref: TypeRef, expr: str, name: str, loc: str, depth: int) -> str:
    """An expression binding the decoded ``expr``; only dataclasses inside need work (and paths)."""
    if ref.kind == "struct" and ref.struct is not None:
        return _decoded_struct_call(module, ref.struct, expr, f"{name} + '.'", loc)
    if ref.item is None or not _holds_struct(ref.item):
        return expr  # scalars and lists/maps of scalars arrive typed and carry no rules
    j, w = f"j{depth}", f"w{depth}"
    step = f"[{{{j}}}]" if ref.kind == "list" else f".{{{j}}}"
    if ref.item.kind == "struct" and ref.item.struct is not None:  # one f-string per item, not three
        inner = _decoded_struct_call(module, ref.item.struct, w, f"{name} + f'{step}.'", loc)
    else:
        inner = _decoded_value(module, ref.item, w, f"{name} + f'{step}'", loc, depth + 1)
    if ref.kind == "list":
        return f"[{inner} for {j}, {w} in enumerate({expr})]"
    return f"{{{j}: {inner} for {j}, {w} in {expr}.items()}}"


def _decoded_struct_call(module: _Module, plan: StructPlan, expr: str, prefix: str, loc: str) -> str:
    return f"{module.decoded_struct(plan)}({expr}, {prefix}, {loc}, errors)"


def _holds_struct(ref: TypeRef) -> bool:
    return ref.kind == "struct" or (ref.item is not None and _holds_struct(ref.item))


def _emit_decoded_field(lines: _Lines, module: _Module, field: FieldPlan, index: int, target: str) -> None:
    """One body field of a top-level binder, read from the decoded Struct ``jb``."""
    name = repr(field.wire)
    if field.type.kind == "scalar":
        lines(f"x = jb.a{index}")
        absent = "'input'" if field.source == "input" else ""
        _emit_scalar(lines, module, field, target, name, "'payload'", "decoded", absent_loc=absent)
    else:
        lines(f"v = jb.a{index}")
        _emit_composite(lines, module, field, target, name, "'payload'", decoded=True)


def _emit_decoded_struct(module: _Module, plan: StructPlan, number: int) -> str:
    lines = _Lines()
    cls = module.cls(plan.cls)
    with lines.block(f"def _u{number}(s, path, loc, errors):"):
        for index, field in enumerate(plan.fields):
            target, name = f"f{index}", f"path + {field.wire!r}"
            if field.type.kind == "scalar":
                lines(f"x = s.a{index}")
                _emit_scalar(lines, module, field, target, name, "loc", "decoded")
            else:
                lines(f"v = s.a{index}")
                _emit_composite(lines, module, field, target, name, "loc", decoded=True)
        lines(f"return {_construct(cls, plan)}")
    return "\n".join(lines.lines)


def _emit_binder(module: _Module, plan: StructPlan, number: int) -> str:
    if not _reaches_itself(plan):
        return _emit_binder_body(module, plan, f"_bind{number}", number)
    # Only a recursive dataclass can make binding recurse without bound (a self-referencing CBOR
    # value); that is bad input, reported like any other, and only these binders pay for the guard.
    guard = _Lines()
    with guard.block(f"async def _bind{number}(request):"):
        with guard.block("try:"):
            guard(f"return await _bind{number}_unguarded(request)")
        with guard.block("except RecursionError:"):
            guard("raise body_error('body nested too deeply') from None")
    body = _emit_binder_body(module, plan, f"_bind{number}_unguarded", number)
    return body + "\n\n\n" + "\n".join(guard.lines)


def _reaches_itself(plan: StructPlan) -> bool:
    """Whether some dataclass bound under ``plan`` (or ``plan`` itself) holds itself."""
    return any(inner.cls in plans_under(inner) for inner in [plan, *plans_under(plan).values()])


def _emit_binder_body(module: _Module, plan: StructPlan, function: str, number: int) -> str:
    lines = _Lines()
    cls = module.cls(plan.cls)
    sources = {f.source for f in plan.fields}
    consumed = sorted({f.wire for f in plan.fields if f.source in ("input", "payload")})
    body_fields = [f for f in plan.fields if f.source in ("input", "payload", "rest")]
    with lines.block(f"async def {function}(request):"):
        lines("errors = []")
        if sources & {"input", "query", "header", "cookie", "path"}:
            lines("scope = request.scope")
        if sources & {"input", "query"}:
            lines("q = query_of(scope)")
        if "header" in sources:
            lines("h = scope['headers']")
        if "cookie" in sources:
            lines("c = cookies_of(scope)")
        if "path" in sources:
            lines("pp = scope.get('path_params', {})")
        decoder = module.json.decoder(number, body_fields) if body_fields else None
        if decoder is not None:
            inputs = sorted({f.wire for f in body_fields if f.source == "input"})
            if inputs:  # a query value comes first for an input field: the generic path handles that
                names = module.constant("_I", _frozen(inputs))
                lines(f"jb = await typed_json(request, {decoder}) if {names}.isdisjoint(q) else None")
            else:
                lines(f"jb = await typed_json(request, {decoder})")
            with lines.block("if jb is not None:"):
                for index, field in enumerate(plan.fields):
                    lines(f"# {field.name}: {field.source} {field.wire!r}")
                    if field in body_fields:
                        _emit_decoded_field(lines, module, field, body_fields.index(field), f"f{index}")
                    else:
                        _emit_top_field(lines, module, field, f"f{index}", consumed)
                _emit_return(lines, cls, plan)
        if body_fields:
            lines(f"body = await read_body(request, {module.cbor!r})")
            lines("bv = body.values")
            lines("typed = body.kind == JSON" + (" or body.kind == CBOR" if module.cbor else ""))
        for index, field in enumerate(plan.fields):
            lines(f"# {field.name}: {field.source} {field.wire!r}")
            _emit_top_field(lines, module, field, f"f{index}", consumed)
        _emit_return(lines, cls, plan)
    return "\n".join(lines.lines)


def _emit_return(lines: _Lines, cls: str, plan: StructPlan) -> None:
    with lines.block("if errors:"):
        lines("raise BindError(errors)")
    lines(f"return {_construct(cls, plan)}")


def _emit_top_field(
    lines: _Lines, module: _Module, field: FieldPlan, target: str, consumed: list[str]
) -> None:
    name, loc, ref = repr(field.wire), repr(_LOCATION[field.source]), field.type
    if field.source == "input" and ref.kind != "scalar":
        loc = "'payload'"  # composite input fields come from the body only
    if field.source == "rest":
        keep = module.constant("_K", _frozen(consumed))
        value = "raw_json(w)" if ref.raw else "w"
        with lines.block("if typed:"):
            lines(f"{target} = {{k: {value} for k, w in bv.items() if k not in {keep}}}")
        with lines.block("else:"):
            lines(f"{target} = {{k: {value} for k, l in bv.items() if k not in {keep} for w in l[:1]}}")
        return
    if field.source in ("header", "cookie"):
        if field.source == "header":
            lines(f"l = header_values(h, {field.wire.lower().encode('latin-1')!r})")
        else:
            lines(f"l = c.get({field.wire!r})")
        with lines.block("if l is not None and len(l) > 1:"):
            lines(f"errors.append(FieldError({name}, {loc}, 'must not be repeated'))")
            lines(f"{target} = {_zero(module, ref, name, loc)}")
        with lines.block("else:"):
            lines("v = l[0] if l else None")
            _emit_scalar(lines, module, field, target, name, loc, "text")
        return
    if field.source in ("path", "method"):
        lines(f"v = pp.get({field.wire!r})" if field.source == "path" else "v = request.method")
        _emit_scalar(lines, module, field, target, name, loc, "text")
        return
    if field.source == "query":
        if ref.kind == "list":
            _emit_text_list(lines, field, target, name, loc, "q")
        else:
            lines(f"l = q.get({field.wire!r})")
            lines("v = l[0] if l else None")
            _emit_scalar(lines, module, field, target, name, loc, "text")
        return
    # input and payload: the body (input scalars look at the query first).
    if ref.kind == "file":
        lines(f"l = body.files.get({field.wire!r})")
        lines(f"{target} = l[0] if l else None")
        if field.required:
            with lines.block(f"if {target} is None:"):
                lines(f"errors.append(FieldError({name}, {loc}, 'required'))")
        return
    if ref.kind == "scalar":
        # A JSON/CBOR body (and, for input, no query value first) is read as typed values;
        # otherwise the value is text, from the query or a form/multipart body.
        typed = f"typed and {field.wire!r} not in q" if field.source == "input" else "typed"
        with lines.block(f"if {typed}:"):
            lines(f"v = bv.get({field.wire!r})")
            absent = "'input'" if field.source == "input" else ""
            _emit_scalar(lines, module, field, target, name, "'payload'", "typed", absent_loc=absent)
        with lines.block("else:"):
            if field.source == "input":
                lines(f"l = q.get({field.wire!r})")
                with lines.block("if l:"):
                    lines("v = l[0]")
                    lines("o = 'query'")
                with lines.block("else:"):
                    lines(f"l = bv.get({field.wire!r})")
                    lines("v = l[0] if l else None")
                    lines("o = 'payload'")
                _emit_scalar(lines, module, field, target, name, "o", "text", absent_loc="'input'")
            else:
                lines(f"l = bv.get({field.wire!r})")
                lines("v = l[0] if l else None")
                _emit_scalar(lines, module, field, target, name, loc, "text")
        return
    with lines.block("if typed:"):
        lines(f"v = bv.get({field.wire!r})")
        _emit_composite(lines, module, field, target, name, loc)
    with lines.block("else:"):
        if ref.kind == "list" and ref.item is not None and ref.item.kind == "scalar":
            _emit_text_list(lines, field, target, name, loc, "bv")
        else:
            lines("v = None")
            _emit_composite(lines, module, field, target, name, loc)


def emit_module(
    tops: dict[type, StructPlan], pieces: tuple[dict[str, Any], dict[str, Any]], cbor: bool
) -> str:
    """The text of one ``_fw_binders.py``: binders for ``tops`` and the OpenAPI ``pieces``."""
    module = _Module(cbor)
    binders: list[str] = []
    registrations: list[str] = []
    for number, (cls, plan) in enumerate(tops.items()):
        binders.append(_emit_binder(module, plan, number))
        closure = sorted(_closure(plan), key=lambda c: f"{c.__module__}.{c.__qualname__}")
        extra = "".join(f", {module.cls(c)}" for c in closure)
        registrations.append(
            f"register({module.cls(cls)}, _bind{number}, {fingerprint(cls, *closure)!r}{extra})"
        )
    operations, schemas = pieces
    parts = [
        HEADER,
        "# fmt: off",
        "# ruff: noqa",
        "import re",
        *(["from typing import Annotated"] if module.json.lines else []),
        "",
        *(_MSGSPEC_IMPORTS if module.json.lines else []),
        "from fw.binding.body import CBOR, JSON, body_error, read_body, typed_json",
        "from fw.binding.registry import register, register_openapi",
        "from fw.codegen.naming import declared",
        "from fw.binding.values import (",
        "    BAD, bool_json, bool_text, bytes_json, bytes_text, cookies_of, float_json, float_text,",
        "    header_values, int_json, int_text, is_date, is_datetime, is_email, is_time, is_uuid, query_of,",
        "    raw_json, str_json,",
        ")",
        "from fw.problems import BindError, FieldError",
        "",
        *module.constants,
        "",
        "",
        *([*PRELUDE, "", *module.json.lines] if module.json.lines else []),
        "",
        "\n\n\n".join(module.functions + binders) if (module.functions or binders) else "",
        "",
        "",
        *registrations,
        "",
        "register_openapi(",
        "    "
        + pprint.pformat(operations, indent=1, width=110, sort_dicts=True).replace("\n", "\n    ")
        + ",",
        "    " + pprint.pformat(schemas, indent=1, width=110, sort_dicts=True).replace("\n", "\n    ") + ",",
        ")",
        "",
    ]
    return "\n".join(parts)


def plans_under(plan: StructPlan) -> dict[type, StructPlan]:
    """Every dataclass held, at any depth, by the fields of ``plan``."""
    found: dict[type, StructPlan] = {}
    pending = [plan]
    while pending:
        for field in pending.pop().fields:
            ref: TypeRef | None = field.type
            while ref is not None:
                if ref.struct is not None and ref.struct.cls not in found:
                    found[ref.struct.cls] = ref.struct
                    pending.append(ref.struct)
                ref = ref.item
    return found


def _closure(plan: StructPlan) -> set[type]:
    return set(plans_under(plan)) - {plan.cls}
