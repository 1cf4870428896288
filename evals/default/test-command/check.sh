#!/bin/sh
# Pass: test-summary.txt holds the runner's summary line for this project.
n=$(cat tests/*.t | grep -c '^check ')
expected="$EVAL_PROJECT: $n passed, 0 failed"
[ -f test-summary.txt ] || { echo "test-summary.txt is missing"; exit 1; }
got=$(head -n1 test-summary.txt | tr -d '\r')
[ "$got" = "$expected" ] || { echo "expected '$expected', got '$got'"; exit 1; }
echo "ok"
