#!/bin/sh
printf '%s\n' "$EVAL_SUMMARY" > "changelog.d/$EVAL_TICKET.$EVAL_KIND.md"
