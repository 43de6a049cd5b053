package e2e
