#!/bin/sh
# Builds the {{app}} package into dist/.
if [ "$BUILD_PROFILE" != "release" ]; then
  echo "build: BUILD_PROFILE is not set to a known profile (see docs/BUILDING.md)" >&2
  exit 3
fi
mkdir -p dist
{
  echo "app={{app}}"
  echo "version={{version}}"
  echo "profile=$BUILD_PROFILE"
  cat "src/{{app}}.txt"
} > "dist/{{app}}-{{version}}.pkg"
echo "built dist/{{app}}-{{version}}.pkg"
