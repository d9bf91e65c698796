"""Posture policies as data: the JSON allow-lists the validator enforces.

Every decision of the static posture validator that a reasonable operator might want
to change lives in a policy file, not in code: which syntax forms, builtins, modules and
module members may be used, which dunder attributes are ordinary and which dunder names
code may define (with the reasons for the refused ones), which callables take attribute
names and where, which class builders and metaclasses exist, which modules count as
reflection or code generation, size limits.  It is an allow-list in substance: what the
policy does not name is refused.  The validator's code holds only the mechanisms.  Two
policies ship in ``policies/``:

- ``default`` permits ordinary business logic (math, re, datetime, decimal, collections,
  dataclasses, enum, typing, json, threading locks, ...) and nothing that reaches the OS,
  the network, the interpreter's internals or code generation;
- ``permissive`` extends ``default`` with ``"enforce": false``: it refuses nothing and
  reports the very same findings, so that a run can show the OS boundary holding alone.

A policy file may say ``"extends": NAME_OR_PATH``; the base is loaded first and the
file's own top-level keys replace the base's (a shallow merge: to change one entry of a
table, repeat the whole table).  A path in ``extends`` is relative to the extending file.
Every file is first validated as a ``PolicyFile`` (complete, or partial with ``extends``),
the model the published policy schema is generated from, so the schema and the loader
accept the same files; the merged result is validated as a ``Policy``.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from derivative._canon import sha256_json
from derivative._errors import UsageError
from derivative._files import MAX_POLICY_BYTES, read_regular_file

POLICY_FORMAT = "derivative.posture-policy/v1"
POLICY_DIR = Path(__file__).resolve().parent / "policies"
"""Where the named policies live (package data of ``derivative.forge``)."""

_MAX_EXTENDS = 8

_Validated = TypeVar("_Validated", bound=BaseModel)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class ModuleRule(_Model):
    """What of one allowed module may be used.

    ``allow`` absent means the module's public API: the names in its ``__all__`` when
    it has one, else its public names that are not themselves modules (so that
    ``typing.sys`` or ``random._os`` never count as part of ``typing`` or ``random``).
    ``deny`` removes names from whatever ``allow`` grants.
    """

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] = ()
    why: str = ""


class NameParameter(_Model):
    """Where a call hands over attribute names, and in what shape.

    ``position`` counts positional arguments (negative from the end, for methods called
    bound or unbound); ``rest`` extends it to every positional argument from there on;
    ``keyword`` is the same parameter passed by keyword.  ``shape``: ``name`` one string,
    ``path`` a dotted string, ``names`` a sequence of strings, ``fields`` what
    ``namedtuple`` and the enum functional API take (a string of names, a sequence of
    names or of (name, value) pairs, a mapping), ``keywords`` the call's keyword names.
    ``store``: the names are written (defined) rather than read.
    """

    position: int | None = None
    rest: bool = False
    keyword: str | None = None
    shape: Literal["name", "path", "names", "fields", "keywords"]
    store: bool = False


class NameArguments(_Model):
    """A callable that takes attribute names: they must be literals the policy allows.

    ``inherited``: classes that derive from this one keep the API (enum's functional
    API: ``Base("E", names)`` for any ``class Base(Enum)``).
    """

    why: str = Field(min_length=1)
    names: tuple[NameParameter, ...] = Field(min_length=1)
    inherited: bool = False


class NameGroup(_Model):
    """Names allowed together, for one reason."""

    names: tuple[str, ...]
    why: str = Field(min_length=1)


class Limits(_Model):
    """Sizes beyond which code is refused as pathological (``ast_structure``)."""

    max_source_bytes: int = Field(default=1_000_000, ge=1)
    max_lines: int = Field(default=20_000, ge=1)
    max_nodes: int = Field(default=200_000, ge=1)
    max_depth: int = Field(default=120, ge=8, le=400)
    max_constant_bytes: int = Field(default=100_000, ge=1)
    max_files: int = Field(default=500, ge=1)
    max_exec_nesting: int = Field(default=2, ge=0, le=5)


class Policy(_Model):
    """A resolved posture policy (after ``extends``)."""

    format: Literal["derivative.posture-policy/v1"]
    name: str = Field(min_length=1)
    description: str = ""
    enforce: bool = Field(
        default=True, description="refuse when there is any finding; false: report only"
    )
    limits: Limits = Limits()
    modules: dict[str, ModuleRule] = Field(
        description="the allow-list: module name (dotted for submodules) -> rule"
    )
    relative_imports: bool = False
    wildcard_imports: bool = False
    syntax: tuple[str, ...] = Field(
        description="the syntax forms (ast node kinds) code may use; any other is refused"
    )
    allowed_builtins: tuple[str, ...] = Field(
        description="the builtins code may name; any other builtin is refused"
    )
    forbidden_builtins: dict[str, str] = Field(description="builtin name -> why it is refused")
    name_arguments: dict[str, NameArguments] = Field(
        description="callables that take attribute names (a builtin, a module member, or "
        "'*.method' for a method of any object): the names must be literals the policy "
        "allows, and the callables may only be called, never passed around"
    )
    template_attributes: dict[str, str] = Field(
        description="methods that read attributes named by a template (str.format): only "
        "on a literal template"
    )
    class_builders: dict[str, str] = Field(
        description="callables that build a class from a namespace (type, metaclasses): "
        "never called with one, and only called, compared or checked against"
    )
    allowed_metaclasses: dict[str, str] = Field(
        description="what `metaclass=` may name; every other metaclass is refused"
    )
    type_factories: dict[str, str] = Field(
        description="callables whose result a type alias may be (TypeVar, namedtuple ...)"
    )
    underscore_api: tuple[str, ...] = Field(
        description="names that begin with an underscore but are documented public API of "
        "what the library returns (namedtuple's _asdict, enum's _value_); every other "
        "private attribute of a library object is refused"
    )
    allowed_dunder_attributes: tuple[str, ...] = Field(
        description="dunder attributes that ordinary code reads (every other one is refused)"
    )
    denied_attributes: dict[str, str] = Field(
        description="attributes refused with a reason (dunders and frame/code internals); "
        "also looked for inside string literals"
    )
    allowed_dunder_definitions: tuple[NameGroup, ...] = Field(
        description="dunder names code may define (methods, class attributes, module "
        "metadata); every other one is refused"
    )
    refused_dunder_definitions: dict[str, str] = Field(
        description="why defining a dunder is refused, for the hooks an attacker wants"
    )
    name_sequence_definitions: dict[str, str] = Field(
        description="class attributes that hold attribute names (__slots__, "
        "__match_args__): a literal sequence of literal names"
    )
    dunder_names: dict[str, str] = Field(
        description="the interpreter-set dunder names code may read (__name__ ...); any "
        "other is refused"
    )
    reserved_names: dict[str, str] = Field(
        description="module-level names that reach the interpreter or tell where the code "
        "runs (__builtins__, __file__ ...), with why they are refused"
    )
    reflection_modules: dict[str, str]
    reflection_members: dict[str, str]
    code_generation_builtins: dict[str, str]
    code_generation_modules: dict[str, str]
    code_generation_members: dict[str, str]
    source_encodings: tuple[str, ...] = ("utf-8",)

    @property
    def sha256(self) -> str:
        """Digest of the policy's content (recorded in every verdict).

        Computed each time, not cached: ``model_copy(update=...)`` would carry a cached
        digest over to a changed policy.
        """
        return sha256_json(self.model_dump(mode="json"))


# --------------------------------------------------------------------------- policy files


_COMPLETE: tuple[str, ...] = tuple(n for n, f in Policy.model_fields.items() if f.is_required())
"""The keys a policy file that extends no other must hold (every required field)."""


def _file_schema(schema: dict[str, Any]) -> None:
    """The JSON Schema of a policy file, from the model's: every key optional, and either
    ``extends`` or every key a complete policy needs (``anyOf``)."""
    properties = schema["properties"]
    for name in (*_COMPLETE, "extends"):
        properties[name].pop("default", None)
    properties["extends"] = {
        "description": properties["extends"]["description"],
        "minLength": 1,
        "title": "Extends",
        "type": "string",
    }
    schema.pop("required", None)
    schema["anyOf"] = [{"required": ["extends"]}, {"required": list(_COMPLETE)}]


class _PolicyFileBase(BaseModel):
    """What every policy file is, whatever its keys: the check the schema's ``anyOf``
    makes, made by the model too, so that the two accept the same files."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", defer_build=True, json_schema_extra=_file_schema
    )

    @model_validator(mode="after")
    def _complete_unless_extending(self) -> _PolicyFileBase:
        """A file that extends no other is a whole policy; ``extends`` names one (JSON's
        ``null`` is not a name, and the schema says so)."""
        if "extends" in self.model_fields_set and getattr(self, "extends", None) is None:
            raise ValueError("'extends' is a policy name or a path, not null")
        if getattr(self, "extends", None) is None:
            missing = [n for n in _COMPLETE if n not in self.model_fields_set]
            if missing:
                raise ValueError(
                    "a policy file that does not extend another needs "
                    + ", ".join(repr(n) for n in missing)
                )
        return self


def _file_model() -> type[BaseModel]:
    """``PolicyFile``: ``Policy`` with every field optional and ``extends`` added."""
    fields: dict[str, Any] = {}
    for name, info in Policy.model_fields.items():
        optional = copy.copy(info)
        if optional.is_required():
            optional.default = None
        fields[name] = (info.annotation, optional)
    fields["extends"] = (
        str | None,
        Field(default=None, min_length=1, description="the policy this file extends: a "
              "shipped policy's name, or a path relative to this file; the file's own keys "
              "replace the base's (a shallow merge)"),
    )
    model: type[BaseModel] = create_model(
        "PolicyFile",
        __base__=_PolicyFileBase,
        __doc__="A policy file as written: a complete policy, or one that `extends` another "
        "and holds only the keys it replaces.",
        **fields,
    )
    return model


PolicyFile = _file_model()
"""A policy file as written (the published schema ``derivative.posture-policy.v1``): a
complete policy, or a partial one that ``extends`` another.  Every file is validated with
it before it is merged; the merged result is then validated as a ``Policy``."""


# --------------------------------------------------------------------------- loading


def available_policies() -> list[str]:
    """The names of the policies that ship with derivative."""
    return sorted(p.stem for p in POLICY_DIR.glob("*.json"))


def _looks_like_path(text: str) -> bool:
    return text.endswith(".json") or os.sep in text or "/" in text or os.path.isfile(text)


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise UsageError(f"no such policy file: {path}")
    raw = read_regular_file(path, limit=MAX_POLICY_BYTES, what="policy")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read policy file {path}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path}:{exc.lineno}:{exc.colno}: policy file is not valid JSON: {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: a policy file holds one JSON object")
    return data


def _resolve_reference(reference: str, relative_to: Path | None) -> Path:
    """The file a policy name or path refers to."""
    if not _looks_like_path(reference):
        path = POLICY_DIR / f"{reference}.json"
        if not path.is_file():
            known = ", ".join(available_policies())
            raise UsageError(
                f"unknown posture policy {reference!r}; known policies: {known} "
                "(or give the path of a policy .json file)"
            )
        return path
    path = Path(reference)
    if relative_to is not None and not path.is_absolute():
        path = relative_to / path
    return path


def _raw_policy(reference: str, relative_to: Path | None, seen: tuple[Path, ...]) -> dict[str, Any]:
    path = _resolve_reference(reference, relative_to)
    key = path.resolve()
    if key in seen:
        chain = " -> ".join(str(p) for p in (*seen, key))
        raise UsageError(f"policy files extend each other in a cycle: {chain}")
    if len(seen) >= _MAX_EXTENDS:
        raise UsageError(f"policy {path}: 'extends' nests deeper than {_MAX_EXTENDS} files")
    data = _read_json(path)
    _validated(PolicyFile, data, str(path), "posture policy file")
    base_ref = data.pop("extends", None)
    if base_ref is None:
        return data
    merged = _raw_policy(base_ref, path.parent, (*seen, key))
    merged.update(data)
    return merged


def _validated(model: type[_Validated], data: dict[str, Any], where: str,
               what: str = "posture policy") -> _Validated:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:6]:
            loc = ".".join(str(part) for part in err["loc"]) or "(top level)"
            problems.append(f"{loc}: {err['msg']}")
        more = "" if exc.error_count() <= 6 else f" (and {exc.error_count() - 6} more)"
        detail = "; ".join(problems) + more
        raise UsageError(f"{where}: not a valid {what}: {detail}") from None


DEFAULT_POLICY = "default"
"""The policy used when none is named (``validate-code``, ``run``): ordinary business logic."""


@functools.lru_cache(maxsize=16)
def _named(name: str) -> Policy:
    return _validated(Policy, _raw_policy(name, None, ()), f"policy {name!r}")


def load_policy(name_or_path: str | os.PathLike[str] | Policy = DEFAULT_POLICY) -> Policy:
    """The policy called ``name_or_path`` (a shipped name or a path to a JSON file).

    Raises ``UsageError`` for an unknown name, a missing or unreadable file, invalid JSON
    or a document that is not a policy; never another exception.
    """
    if isinstance(name_or_path, Policy):
        return name_or_path
    reference = os.fspath(name_or_path)
    if not isinstance(reference, str) or not reference:
        raise UsageError("no posture policy given")
    if not _looks_like_path(reference):
        return _named(reference)
    return _validated(Policy, _raw_policy(reference, None, ()), reference)
