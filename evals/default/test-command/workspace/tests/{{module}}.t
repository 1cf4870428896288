check {{module}} accepts valid input
check {{module}} rejects empty input
check {{module}} keeps order
