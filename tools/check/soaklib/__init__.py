"""The parts of tools/check/soak (its docstring says what the soak does), a module each:

  run      the run's record: its clock, events.log, the failures and checks, its threads
  hub      the private PostgreSQL, `nearcast-hub serve`, and the crowd and the watch on it
  box      the simulated box, its console, and the state it leaves
  faults   the tmpfs, the fault schedule, each fault on and off, the recovery after it
  report   the samples, the growth figures, summary.txt and soak.png
  soak     the parts put together: set up, run, checked at the end, cleaned up
"""
