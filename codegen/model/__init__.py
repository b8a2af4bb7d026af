"""The manifest: ops.yaml parsed into entries and custom ops, each checked
against facts/ (a bad entry fails with its file, line and the fix)."""
