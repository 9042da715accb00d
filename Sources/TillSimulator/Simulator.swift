// The terminal simulator (issue #3).
