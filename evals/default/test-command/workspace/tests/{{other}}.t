check {{other}} starts
check {{other}} stops cleanly
