#!/bin/sh
# The verifier of the note-writing tasks. It runs in the sandbox, in the trial's state folder,
# after the agent stopped; the task's check is in VWT_CHECK_PATH (the note), VWT_CHECK_TEXT
# (its text) and VWT_CHECK_FILES (how many files the folder holds afterwards). It prints one
# JSON verdict. Paths here are plain words, dashes, dots and slashes: no JSON escaping needed.
set -u
reasons=""
add() { reasons="${reasons:+$reasons, }\"$1\""; }

if [ ! -f "$VWT_CHECK_PATH" ]; then
    add "path: $VWT_CHECK_PATH missing"
else
    # $(...) drops trailing newlines: a note ending in a newline holds the same text
    got=$(cat "$VWT_CHECK_PATH")
    [ "$got" = "$VWT_CHECK_TEXT" ] || add "text: $VWT_CHECK_PATH holds other text than asked"
fi
files=$(find . -type f | wc -l)
[ "$files" -eq "$VWT_CHECK_FILES" ] || add "scope: $files files, expected $VWT_CHECK_FILES"

if [ -z "$reasons" ]; then
    echo '{"passed": true, "reasons": []}'
else
    echo "{\"passed\": false, \"reasons\": [$reasons]}"
fi
