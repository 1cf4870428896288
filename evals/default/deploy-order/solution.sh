#!/bin/sh
./migrate.sh && ./deploy.sh "$EVAL_SERVICE" "$EVAL_VERSION"
