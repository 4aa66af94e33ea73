// Tests for StratusServer.
