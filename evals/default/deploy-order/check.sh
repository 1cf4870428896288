#!/bin/sh
# Pass: the service was deployed at that version, against the migrated schema.
[ -f deployed.txt ] || { echo "nothing was deployed"; exit 1; }
grep -qx "$EVAL_SERVICE $EVAL_VERSION schema=2" deployed.txt || { echo "no deploy of $EVAL_SERVICE $EVAL_VERSION on schema 2"; exit 1; }
echo "ok"
