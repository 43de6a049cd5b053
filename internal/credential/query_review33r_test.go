package credential

import "testing"

// TestInURLQueryWhatItCosts: what docs/guide.md says a hook's query
// costs. A value that does not read as words or a version is taken for a
// key, a commit's hash and an id too (a hook naming one stays out); a
// version, words, a search and a date cross.
func TestInURLQueryWhatItCosts(t *testing.T) {
	for text, want := range map[string]bool{
		`curl -s "https://api.github.com/repos/o/r/commits?sha=9fceb02d0ae598e95dc970b74767f19372d61af8"`: true,
		`curl -s "https://status.example.com/api/v1/projects?id=550e8400-e29b-41d4-a716-446655440000"`:    true,
		`curl -s "https://api.github.com/repos/o/r/releases?ref=v1.24.3-rc1&per_page=1"`:                  false,
		`curl -s "https://api.github.com/search/issues?q=is%3Aopen+is%3Apr+author%3A%40me"`:               false,
		`curl -s "https://api.example.com/v1/items?since=2024-01-01T00:00:00Z&limit=50"`:                  false,
		`curl -s "https://wttr.in/Berlin?format=%l:+%c+%t"`:                                               false,
		`curl -s 'https://api.open-meteo.com/v1/forecast?latitude=52.52&current=temperature_2m'`:          false,
	} {
		if got := InCommand([]byte(text)); got != want {
			t.Errorf("InCommand(%q) = %v, want %v", text, got, want)
		}
	}
}
