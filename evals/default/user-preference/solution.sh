#!/bin/sh
{
  echo "# $EVAL_PRODUCT $EVAL_VERSION"
  echo
  sed 's/^/- /' CHANGES.txt
  echo
  echo "Signed-off-by: release-bot"
} > NOTES.md
