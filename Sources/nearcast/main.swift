import NearcastApp

// The executable stays thin: everything lives in NearcastApp, where tests can reach it.
NearcastCommand.main()
