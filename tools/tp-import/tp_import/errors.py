"""The one exception type for problems the user can fix.

The command line prints its message as `tp-import: error: ...` and exits
with status 1; anything else escaping is a bug in tp-import itself.
"""


class UserError(Exception):
    """A problem with the input: the spec, the file, the module or its ops."""
