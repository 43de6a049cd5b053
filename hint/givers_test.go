package hint

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestHintGivers keeps docs/development.md's list of the packages that
// give an error its hint the packages that import this one.
func TestHintGivers(t *testing.T) {
	doc, err := os.ReadFile("../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	sentence := regexp.MustCompile("(?s)The packages that give an error its hint are (.*?)\\(`TestHintGivers`").FindSubmatch(doc)
	if sentence == nil {
		t.Fatal("docs/development.md lists no packages that give hints")
	}
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z/]+)`").FindAllSubmatch(sentence[1], -1) {
		listed = append(listed, string(m[1]))
	}
	out, err := exec.Command("go", "list", "-f", "{{.Name}} {{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/claudebox/claudebox"
	var givers []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if !slices.Contains(f[2:], module+"/hint") {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(f[1], module), "/")
		if f[0] == "main" {
			name = "main"
		}
		givers = append(givers, name)
	}
	slices.Sort(listed)
	slices.Sort(givers)
	if !slices.Equal(listed, givers) {
		t.Errorf("docs/development.md names %v as giving hints; those that import hint are %v", listed, givers)
	}
}
