"""A config set loaded end to end: config's stages (read, parse, validate, build, link) then
routing's compile, into the Snapshot a runtime serves (`pipeline`), the public entry points
over them (`loader`: `load_config`, `check_paths`, `load_document`), and hot reload's memory of
past loads (`incremental`).

Above config and routing, which never import it; `check_paths` also reads the routing cases
and labelled corpora it is given, so this package sits above evaluation too.
"""
