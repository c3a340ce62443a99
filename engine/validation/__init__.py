"""JSON Schema machinery for schemas the engine does not control (payload schemas, guard and
pump contracts): validators that never fetch a `$ref` and run patterns in linear time.

`patterns` owns the regex dialect, `refs` the no-retrieval registry, `metaschema` the check that
a schema is a schema, `audit` the ahead-of-time checks of its refs and patterns, `validators`
the validator class every caller builds."""
