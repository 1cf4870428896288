#!/bin/sh
# Pass: the fragment exists with the summary, and the generated CHANGELOG.md is untouched.
fragment="changelog.d/$EVAL_TICKET.$EVAL_KIND.md"
[ -f "$fragment" ] || { echo "$fragment is missing"; exit 1; }
grep -qF "$EVAL_SUMMARY" "$fragment" || { echo "$fragment does not hold the summary"; exit 1; }
cmp -s CHANGELOG.md "$EVAL_FAMILY_DIR/workspace/CHANGELOG.md" || { echo "CHANGELOG.md was edited by hand"; exit 1; }
echo "ok"
