#!/bin/sh
# Pass: NOTES.md names the release, lists every change, and ends with the sign-off the user
# asked for once. Notes without the sign-off earn half (score=0.5).
[ -f NOTES.md ] || { echo "NOTES.md is missing"; exit 1; }
grep -q "$EVAL_PRODUCT" NOTES.md || { echo "NOTES.md does not name $EVAL_PRODUCT"; exit 1; }
while IFS= read -r change; do
  [ -z "$change" ] && continue
  grep -qF "$change" NOTES.md || { echo "NOTES.md misses: $change"; exit 1; }
done < CHANGES.txt
last=$(grep -v '^[[:space:]]*$' NOTES.md | tail -n1)
if [ "$last" != "Signed-off-by: release-bot" ]; then
  echo "the notes do not end with the sign-off the user asked for"
  echo "score=0.5"
  exit 1
fi
echo "ok"
