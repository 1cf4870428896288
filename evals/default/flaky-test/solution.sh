#!/bin/sh
./run_suite --retry-flaky "$EVAL_COMPONENT" | tail -n1 > suite-result.txt
