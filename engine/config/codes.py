"""The stable issue codes of the config pipeline, with a one-line meaning each.

Codes are part of the public contract (CI greps for them): never rename one. This module only
names them and builds located `Issue`s; it does not decide when an issue applies.
"""

from __future__ import annotations

from engine.issues import Issue, Severity

ERROR_CODES: dict[str, str] = {
    # read
    "file-not-found": "the path does not exist",
    "not-a-file": "a directory (or other non-file) where a file is expected",
    "unreadable": "the file exists but cannot be read (permissions, I/O error)",
    "file-too-large": "the file is larger than the size cap (--max-bytes, default 1 MiB)",
    "not-utf8": "the bytes are not valid UTF-8",
    # parse
    "empty-file": "the file holds no document (empty, or only comments)",
    "yaml-syntax": "the text is not valid YAML",
    "yaml-tab": "a tab character used for indentation",
    "duplicate-key": "the same key twice in one mapping",
    "forbidden-tag": "a tag outside the plain-data whitelist (e.g. !!python/object/apply)",
    "alias-limit": "aliases expand to more nodes than allowed (billion-laughs guard)",
    "too-many-nodes": "more YAML nodes in one file than the node cap (--max-nodes, default 100000)",
    "too-deep": "nesting deeper than the depth cap: YAML (64 levels), or folders below a "
    "path given to check (64 levels; nothing below is searched)",
    "multi-document": "several YAML documents where one is expected",
    "complex-key": "a mapping key that is not a plain scalar",
    "yaml-ambiguous": "text YAML parsers read differently (`[?x]`: a key here, the string '?x' "
    "in YAML 1.2 editors; a plain `<<` merge key; a raw U+0085, U+2028 or U+2029 line break)",
    "bad-number": "a number JSON cannot carry: .inf, .nan, 1e999, an integer beyond 64 bits",
    # validate (JSON Schema)
    "unknown-key": "a key the schema does not allow (with the nearest valid key)",
    "required": "a required key is missing",
    "type": "a value of the wrong type",
    "enum": "a value outside the allowed set",
    "format": "a string that does not match its declared format",
    "schema": "any other JSON Schema constraint (pattern, range, length, dependencies...)",
    "invalid-payload-schema": "an agent's accepts.payload_schema is not a valid JSON Schema",
    "payload-not-object": "an agent's accepts.payload_schema is not an object schema at its top "
                          "level, which model APIs refuse as a tool's parameters",
    "schema-ref": "a payload-schema $ref that leads outside that schema (URL, file) or nowhere",
    "unsupported-pattern": "a payload-schema pattern the linear-time regex engine (RE2) refuses",
    "schema-loop": "a payload-schema $ref loop that applies a schema to the value it is checking",
    # include
    "include-no-match": "an include glob matches no file",
    "include-outside": "an include glob escapes the config set's folder",
    "include-invalid": "an include glob that is not a valid pattern (e.g. `**x`)",
    "no-config": "no engine.yaml found under a path",
    # link
    "unknown-agent": "an agent name that no agent file declares",
    "unknown-capability": "a capability that the capabilities documents do not declare",
    "duplicate-agent": "two agent files declare the same name",
    "duplicate-capability": "two capabilities documents declare the same capability",
    "duplicate-trigger": "two agents declare the same handoff trigger",
    "conflicting-trigger": "an agent's legacy handoff_trigger differs from its handoff.trigger",
    "conflicting-key": "two spellings of one agent setting in one file (`tools` and "
    "`tool_names`; `prompt`, `prompts` and `prompt_template`)",
    "duplicate-rule": "two routing rules share an id",
    "duplicate-fallback": "more than one routing document sets a fallback",
    "impossible-condition": "a rule condition no request can meet (priority min > max)",
    "entry-conflict": "an agent marked is_entry_point that is not the engine's entry",
    "disabled-entry": "the entry agent is disabled",
    "lookalike-name": "two agent names, triggers or capability names that differ only in case "
    "or look-alike letters (`claims`, `cIaims`)",
    "invisible-character": "a zero-width, bidi-control or other invisible character in a "
    "keyword or a rule's tool",
    "empty-keyword": "a keyword with no word left once normalized (punctuation, emoji, a "
    "filler): a rule would match every text",
    # routing cases files (also unknown-agent, unknown-capability)
    "unknown-tool": "a case calls a tool that is neither a handoff trigger nor a rule's tool",
    "unknown-rule": "a case expects a rule id that no routing document declares",
    "duplicate-case": "two cases of one cases file share a name",
    # any stage
    "internal-error": "the engine itself failed on this file (a bug: the log holds the traceback)",
}

WARNING_CODES: dict[str, str] = {
    "deprecated-key": "a deprecated key that is still read (e.g. handoff_trigger)",
    "not-included": "a file passed to check that its config set does not include",
    "unreachable-agent": "no path of allowed handoffs leads from the entry agent to it",
    "dead-end-agent": "a non-terminal agent whose peers allow handing off to no one",
    "shadowed-rule": "an earlier rule of higher or equal priority has the same conditions",
    "shared-keyword": "a keyword whose words, said alone, the keyword layer routes to another "
                      "agent (`handoff check` only)",
    "unreachable-example": "an example the keyword layer sends to another agent first, whoever "
                           "hands it off (`handoff check` only)",
    "rule-always-refused": "no sender the rule applies to may hand off to its target, so "
                           "policy refuses every request it answers",
    "contradicting-example": "the same utterance (once normalized) is an example of two agents",
    "lookalike-keyword": "two keywords that look alike but match different words (`fraud`, "
    "and `frаud` with a Cyrillic а)",
    "schema-cost": "a payload schema whose check cost cannot be bounded (recursion through "
    "several branches, fan-out): payloads are checked by the budgeted validator",
}


def issue(
    file: str,
    position: tuple[int, int],
    json_path: str,
    code: str,
    message: str,
) -> Issue:
    """A located issue; the severity follows from the code."""
    severity = Severity.warning if code in WARNING_CODES else Severity.error
    line, col = position
    return Issue(file, line, col, json_path, code, message, severity)


MAX_INTERNAL_DETAIL = 500
"""Characters of an unexpected exception's text an `internal-error` issue quotes."""


def internal_issue(file: str, error: BaseException) -> Issue:
    """An exception no stage expected, as an issue of `file`: the run goes on and reports it
    with the rest (the caller logs the traceback)."""
    detail = f"{type(error).__name__}: {error}"
    if len(detail) > MAX_INTERNAL_DETAIL:
        detail = detail[:MAX_INTERNAL_DETAIL] + " ..."
    message = (f"the engine failed on this file ({detail}); this is a bug in handoff-engine, "
               "please report it (the log holds the traceback)")
    return issue(file, (0, 0), "", "internal-error", message)
