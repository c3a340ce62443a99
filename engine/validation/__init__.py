"""JSON Schema machinery for schemas the engine does not control (payload schemas, guard and
pump contracts): validators that never fetch a `$ref` and run patterns in linear time.

`patterns` owns the regex dialect, `refs` the no-retrieval registry, `audit` the ahead-of-time
checks of a user schema, `validators` the validator class every caller builds."""
