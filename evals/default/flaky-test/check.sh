#!/bin/sh
# Pass: suite-result.txt holds the line of a run where every test passed.
expected="$EVAL_COMPONENT: 5 of 5 tests passed (1 retried)"
[ -f suite-result.txt ] || { echo "suite-result.txt is missing"; exit 1; }
got=$(head -n1 suite-result.txt | tr -d '\r')
[ "$got" = "$expected" ] || { echo "expected '$expected', got '$got'"; exit 1; }
echo "ok"
