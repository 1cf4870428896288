#!/bin/sh
# Pass: the package exists in dist/ and was built with the release profile.
pkg="dist/$EVAL_APP-$EVAL_VERSION.pkg"
[ -f "$pkg" ] || { echo "$pkg is missing"; exit 1; }
grep -qx "app=$EVAL_APP" "$pkg" || { echo "$pkg does not name the app"; exit 1; }
grep -qx "profile=release" "$pkg" || { echo "$pkg was not built with the release profile"; exit 1; }
echo "ok"
