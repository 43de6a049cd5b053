package probe

import "testing"

// TestGoogleProject: the project Gemini CLI's Google login uses on the
// host, as it reads its variables, is the one its calls may name.
func TestGoogleProject(t *testing.T) {
	for env, want := range map[[2]string]string{
		{"", ""}:            "",
		{"team-prod", ""}:   "team-prod",
		{"team-prod", "id"}: "team-prod",
		{"", "by-id"}:       "by-id",
	} {
		getenv := func(name string) string {
			return map[string]string{"GOOGLE_CLOUD_PROJECT": env[0], "GOOGLE_CLOUD_PROJECT_ID": env[1]}[name]
		}
		if got := googleProject(getenv); got != want {
			t.Errorf("GOOGLE_CLOUD_PROJECT=%q GOOGLE_CLOUD_PROJECT_ID=%q: %q, want %q", env[0], env[1], got, want)
		}
	}
}
