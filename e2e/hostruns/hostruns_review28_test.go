package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview28RailsERBConfig: Rails reads config/database.yml, and
// every config/*.yml config_for loads, through ERB before YAML, so
// <%= system(…) %> there runs at the host's bin/rails runner, rails s and
// rails test; figaro's config/application.yml likewise. Both are kept
// out of git (the user's own database settings, secrets). The exit audit
// judged an ignored file by the extensions interpreters run, and YAML is
// none: the session rewrites the user's config/database.yml and writes
// config/application.yml. Host-side proof: after the session, the host
// reads both as Rails does (ERB, then YAML) and runs nothing the session
// wrote.
func TestReplayReview28RailsERBConfig(t *testing.T) {
	harness.RequireTool(t, "ruby", "apt-get install ruby")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/config/database.yml\n/config/application.yml\n")
	h.Write(filepath.Join(proj, "Gemfile"), "source \"https://rubygems.org\"\ngem \"rails\"\n")
	h.Write(filepath.Join(proj, "config", "application.rb"), "require_relative \"boot\"\n")
	commitAll(h, proj, "rails")
	h.Write(filepath.Join(proj, "config", "database.yml"), "development:\n  adapter: sqlite3\n  database: db/development.sqlite3\n")
	marker := h.Marker()
	out := plantUnseen(t, h, proj, "configuration", `
		printf 'development:\n  adapter: <%%= system("touch `+marker+`.database") && "sqlite3" %%>\n' > config/database.yml
		printf 'API_KEY: <%%= system("touch `+marker+`.application") %%>\n' > config/application.yml`)
	// What Rails' database_configuration and config_for do with each.
	read := `require "erb"; require "yaml"; ARGV.each { |f| YAML.load(ERB.new(File.read(f)).result) if File.exist?(f) }`
	ran, _ := h.Command(proj, nil, "ruby", "-e", read, "config/database.yml", "config/application.yml").CombinedOutput()
	for _, what := range []string{"database", "application"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's Rails read of config/%s.yml ran what the session wrote:\n%s\n%s", what, out, ran)
		}
		if !strings.Contains(out, what+".yml") {
			t.Errorf("the exit did not name config/%s.yml:\n%s", what, out)
		}
	}
}
