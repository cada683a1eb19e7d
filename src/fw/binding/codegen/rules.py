"""The rule table: every ``fw.check`` rule and binding marker, what it accepts and what it answers.

The planner accepts exactly the rules named here, the emitter writes the messages from here, the
OpenAPI writer takes the keyword from here, and the documentation's rule reference
(``docs/reference/binding-rules.md``) is generated from here, so the four cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """One ``fw.check`` rule."""

    name: str
    #: What follows ``=`` (``""``: the rule takes no value).
    argument: str
    #: The field types it applies to.
    applies_to: str
    #: The error message of a value that breaks it; ``{arg}`` is the rule's value.
    message: str
    #: What it means, for the reference.
    meaning: str
    #: The OpenAPI keyword it becomes (``""``: none of its own).
    openapi: str = ""

    def message_for(self, argument: str) -> str:
        return self.message.format(arg=argument, name=self.name)


#: ``fw.check("...")`` rules, in the order the reference lists them.
RULES: tuple[RuleSpec, ...] = (
    RuleSpec(
        "required",
        "",
        "any field",
        "required",
        "Non-empty for strings, lists and dicts, present for files and dataclasses, sent for "
        "numbers and bools (an explicit 0 or false passes).",
        "required (minLength 1 for str, minItems 1 for a list)",
    ),
    RuleSpec(
        "min", "a number", "int, float", "must be >= {arg}", "At least the number (inclusive).", "minimum"
    ),
    RuleSpec(
        "max", "a number", "int, float", "must be <= {arg}", "At most the number (inclusive).", "maximum"
    ),
    RuleSpec(
        "minlen", "a length", "str", "length must be >= {arg}", "At least this many characters.", "minLength"
    ),
    RuleSpec(
        "maxlen", "a length", "str", "length must be <= {arg}", "At most this many characters.", "maxLength"
    ),
    RuleSpec(
        "len",
        "a length",
        "str",
        "length must be {arg}",
        "Exactly this many characters.",
        "minLength, maxLength",
    ),
    RuleSpec(
        "pattern",
        "a regular expression (the last rule: it may contain commas)",
        "str",
        "must match pattern",
        "The regular expression matches somewhere in the value (an unanchored search: anchor "
        "it with ^ and $); an empty optional value is not checked.",
        "pattern",
    ),
    RuleSpec(
        "email",
        "",
        "str",
        "must be a valid {name}",
        "An e-mail address (local@domain); an empty optional value is not checked.",
        "format: email",
    ),
    RuleSpec(
        "uuid",
        "",
        "str",
        "must be a valid {name}",
        "A UUID in its 8-4-4-4-12 hexadecimal form; an empty optional value is not checked.",
        "format: uuid",
    ),
    RuleSpec(
        "date",
        "",
        "str",
        "must be a valid {name}",
        "A calendar date, YYYY-MM-DD; an empty optional value is not checked.",
        "format: date",
    ),
    RuleSpec(
        "time",
        "",
        "str",
        "must be a valid {name}",
        "A time of day, HH:MM:SS; an empty optional value is not checked.",
        "format: time",
    ),
    RuleSpec(
        "datetime",
        "",
        "str",
        "must be a valid {name}",
        "An RFC 3339 date and time with its offset; an empty optional value is not checked.",
        "format: date-time",
    ),
)

RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in RULES)
BY_NAME: dict[str, RuleSpec] = {rule.name: rule for rule in RULES}
#: The rules that are string formats, with their OpenAPI ``format``.
FORMATS: dict[str, str] = {
    rule.name: rule.openapi.removeprefix("format: ") for rule in RULES if rule.openapi.startswith("format: ")
}


@dataclass(frozen=True, slots=True)
class MarkerSpec:
    """A binding marker other than ``fw.check`` (a source, a value list, a default)."""

    usage: str
    meaning: str
    message: str = ""


#: Markers of a bound field, in the order the reference lists them.
MARKERS: tuple[MarkerSpec, ...] = (
    MarkerSpec(
        'fw.enum("a,b,c")',
        "A scalar must be one of the listed values (parsed as the field's type); an absent "
        "optional value is not checked.",
        "must be one of: a, b, c",
    ),
    MarkerSpec(
        'fw.default("value")',
        "The value when the request gives none, parsed at generation time and applied after "
        'validation; fw.default("") is an explicit empty string.',
    ),
    MarkerSpec(
        "none, or fw.input(name)",
        "A scalar reads the query first, then the body; lists, dicts and dataclasses the body only.",
    ),
    MarkerSpec('fw.query("name")', "The query string only (a list field takes every repetition)."),
    MarkerSpec('fw.payload("name")', "The body only (JSON, form or multipart)."),
    MarkerSpec('fw.payload("*")', "Every body key no sibling field consumed, into a dict."),
    MarkerSpec('fw.path("name")', "The route wildcard {name}."),
    MarkerSpec('fw.header("Name")', "One request header (case-insensitive).", "must not be repeated"),
    MarkerSpec('fw.cookie("name")', "One cookie.", "must not be repeated"),
    MarkerSpec("fw.method()", "The HTTP method, into a str field."),
)

#: The message of a value that is not of its field's type.
TYPE_ERRORS: dict[str, str] = {
    "str": "invalid string",
    "int": "invalid int",
    "float": "invalid float",
    "bool": "invalid bool",
    "bytes": "invalid base64",
}
