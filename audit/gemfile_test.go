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

// TestEvalsUnspelled: a Gemfile that evaluates a file by a path it joins,
// a pattern's matches or a block's parameter names it by no literal the
// audit judges; one by a literal, or a variable assigned one, does.
func TestEvalsUnspelled(t *testing.T) {
	for src, want := range map[string]bool{
		"Dir.glob(File.join(__dir__, \"plugins\", \"*\", \"deps\")).each { |f| eval_gemfile f }\n":                            true,
		"Dir.glob File.expand_path(\"../plugins/*/{Gemfile,PluginGemfile}\", __FILE__) do |file|\n  eval_gemfile file\nend\n": true,
		"eval(File.read(ENV[\"EXTRA_GEMS\"]))\n":                                                           true,
		"instance_eval File.read(\"gems.\" + env)\n":                                                       true,
		"local = File.expand_path(\"Gemfile.local\", __dir__)\neval_gemfile local if File.exist?(local)\n": false,
		"eval_gemfile \"#{__dir__}/Gemfile.local\"\n":                                                      false,
		"eval_gemfile 'gemfiles/shared.rb'\ngem \"rails\"\ngem \"loader\"\n":                               false,
		"source \"https://rubygems.org\"\ngemspec\n":                                                       false,
	} {
		if got := evalsUnspelled(src); got != want {
			t.Errorf("%q: %v, want %v", src, got, want)
		}
	}
}
