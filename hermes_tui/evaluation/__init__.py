"""`hermes-tui eval`: task suites, the runner of the learn and control arms, and the report.

Plain Python over the runtime (no Textual): suite.py loads and checks a suite, checker.py runs a
family's checker in the sandbox, runner.py runs the arms, stats.py and report.py turn the
records into curves, intervals and a verdict, chart.py draws them as SVG.
"""
