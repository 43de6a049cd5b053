package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/guard"
)

// Every row's project files are guarded, and every variable that holds
// its key or names its API is one claudebox sets inside (the host's value
// reaching only the proxy): a row that forgot one would let the sandbox
// plant what the host's agent obeys, or hold the real key.
func TestRowsGuardedAndKeysKept(t *testing.T) {
	for _, a := range All {
		for _, f := range a.ProjectFiles {
			if !slices.Contains(guard.WorkTreeNames(), f) {
				t.Errorf("%s: project file %s is not guarded", a.Name, f)
			}
		}
		for _, v := range append(slices.Clone(a.KeyVariables), a.BaseURLVariable) {
			if v != "" && !slices.Contains(environment.APIVariables, v) {
				t.Errorf("%s: %s would pass into the sandbox", a.Name, v)
			}
		}
		if !a.IsClaude() && !slices.Contains(environment.APIVariables, a.Key.Variable()) {
			t.Errorf("%s: its phantom's variable %s is not claudebox's to set", a.Name, a.Key.Variable())
		}
	}
}

// The private copy of the settings keeps the user's and wins where it
// must: their other keys stay, its own sandbox and the login are
// claudebox's.
func TestSettingsContent(t *testing.T) {
	got := string(Gemini.SettingsContent([]byte(`{"ui":{"theme":"x"},"tools":{"sandbox":"docker","core":["a"]},"security":{"auth":{"selectedType":"oauth-personal"}}}`)))
	for _, want := range []string{`"theme": "x"`, `"sandbox": false`, `"core": [`, `"selectedType": "gemini-api-key"`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	if got := string(Gemini.SettingsContent([]byte("not json"))); !strings.Contains(got, `"sandbox": false`) {
		t.Errorf("a file that is not JSON: %s", got)
	}
}
