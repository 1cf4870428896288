#!/bin/sh
# Usage: ./deploy.sh SERVICE VERSION
[ $# -eq 2 ] || { echo "usage: ./deploy.sh SERVICE VERSION" >&2; exit 64; }
schema=$(cat db/schema_version)
if [ "$schema" -lt 2 ]; then
  echo "deploy: the database schema is behind ($schema < 2); pending migrations must be applied first" >&2
  exit 4
fi
echo "$1 $2 schema=$schema" >> deployed.txt
echo "deployed $1 $2 to staging"
