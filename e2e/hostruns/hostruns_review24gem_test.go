package hostruns

import (
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview24PluginGemfile: Redmine's Gemfile evaluates every
// plugin's own, Dir.glob File.expand_path("../plugins/*/{Gemfile,
// PluginGemfile}", __FILE__), and git ignores the plugins installed
// there. The exit audit looked up what a Gemfile names by a string
// literal, which a pattern is not, and judged an ignored Gemfile by its
// mode, #! and extension: the session's plugins/x/Gemfile ran at the
// host's bundle check, git status clean, the exit silent. Host-side
// proof: the host's bundle check runs nothing the session wrote.
func TestReplayReview24PluginGemfile(t *testing.T) {
	harness.RequireTool(t, "bundle", "apt-get install ruby-bundler")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Gemfile"), "source \"https://rubygems.org\"\nDir.glob File.expand_path(\"../plugins/*/{Gemfile,PluginGemfile}\", __FILE__) do |file|\n  eval_gemfile file\nend\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/plugins/*\n!/plugins/README\n/Gemfile.lock\n")
	h.Write(filepath.Join(proj, "plugins", "README"), "Put your plugins here.\n")
	harness.CommitAll(h, proj, "gems")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "plugin's Gemfile", `mkdir plugins/evil && printf 'File.write("`+marker+`", "")\n' > plugins/evil/Gemfile`)
	h.RunsNothingPlanted(out, proj, nil, "bundle", "check")
}
