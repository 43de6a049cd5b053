module github.com/claudebox/claudebox

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.49.0
)

require golang.org/x/tools v0.26.0 // indirect
