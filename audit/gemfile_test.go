package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGemfileNamed: what a Gemfile names by a string literal, at the top
// and below, the session made and git does not track, is a finding; a
// file it names that the session did not write, or that it wrote and no
// Gemfile names, is not.
func TestGemfileNamed(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "Gemfile"), []byte("source \"https://rubygems.org\"\nlocal = File.expand_path('Gemfile.local', __dir__) # 'commented'\neval_gemfile local if File.exist?(local)\neval_gemfile \"#{__dir__}/config/gems\"\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "engine"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "engine", "gems.rb"), []byte("eval_gemfile 'gems.local.rb.txt'\n"), 0o644))
	write(t, filepath.Join(root, "rubygems.org"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"Gemfile.local", "config/gems", "engine/gems.local.rb.txt", "commented", "other.local"} {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"Gemfile.local", "config/gems", "engine/gems.local.rb.txt"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

func TestRubyStrings(t *testing.T) {
	got, whole := rubyStrings("gem 'rails', \"~> 7.0\" # 'x'\nx = \"#{ROOT}/local\" + 'a\\'b'\n")
	if want := []string{"rails", "~> 7.0", "local"}; !whole || !slices.Equal(got, want) {
		t.Errorf("rubyStrings: %q, %v; want %q", got, whole, want)
	}
}

func TestRubyGemfile(t *testing.T) {
	for name, want := range map[string]bool{
		"Gemfile": true, "gems.rb": true, "PluginGemfile": true, "Gemfile.local": true, "rails_7.gemfile": true,
		"Gemfile.lock": false, "gems.locked": false, "Rakefile": false, "main.rb": false,
	} {
		if got := rubyGemfile(name); got != want {
			t.Errorf("rubyGemfile(%q) = %v, want %v", name, got, want)
		}
	}
}
