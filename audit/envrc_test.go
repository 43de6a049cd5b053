package audit

import (
	"slices"
	"testing"
)

// TestEnvrcNames: the files an .envrc sources or loads by a name it
// spells are read from direnv's commands and the shell's; a name with an
// expansion, a pattern or a quote left open is not spelled. A shell run
// on a file reads it as source does; eval runs what its words make.
func TestEnvrcNames(t *testing.T) {
	names, unspelled := envrcNames("source_env_if_exists config/local\ndotenv_if_exists\nexport A=1; . ./x.env # source_env y\ndotenv 'secrets/dev.vars'\n")
	if want := []string{"config/local", ".env", "x.env", "secrets/dev.vars"}; !slices.Equal(names, want) || unspelled {
		t.Errorf("names %q (unspelled %v), want %q", names, unspelled, want)
	}
	if names, _ := envrcNames("bash config/local && sh ./run\n"); !slices.Equal(names, []string{"config/local", "run"}) {
		t.Errorf("a shell run on a file: %q", names)
	}
	for _, envrc := range []string{"eval \"$(cat config/local)\"\n", "source_env_if_exists $PWD/local\n", "for f in env/*; do source $f; done\n", "source_env \"my file\"\n"} {
		if _, unspelled := envrcNames(envrc); !unspelled {
			t.Errorf("%q: taken for spelled", envrc)
		}
	}
}
