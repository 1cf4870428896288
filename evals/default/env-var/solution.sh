#!/bin/sh
BUILD_PROFILE=release ./build.sh
