package audit

import (
	"testing"
)

// TestScanNewCratePathOutside: a new crate's manifest naming a path
// dependency by an absolute path, or by a relative one out of the walk's
// root, is found, as is one whose path is no string; one naming a crate
// inside the project, through .. too, is not.
func TestScanNewCratePathOutside(t *testing.T) {
	scanFindsMade(t, map[string]string{
		"Cargo.toml":            "[workspace]\nmembers = [\"crates/*\"]\n",
		"crates/app/Cargo.toml": "[package]\nname = \"app\"\n",
	}, map[string]string{
		"crates/abs/Cargo.toml":    "[package]\nname = \"a\"\n[dependencies]\nx = { path = \"/home/u/.claudebox/projects/0123456789abcdef/x\" }\n",
		"crates/up/Cargo.toml":     "[package]\nname = \"u\"\n[build-dependencies.x]\npath = \"../../../x\"\n",
		"crates/ws/Cargo.toml":     "[package]\nname = \"w\"\n[workspace.dependencies]\nx = { path = \"../../..\" }\n",
		"crates/target/Cargo.toml": "[package]\nname = \"t\"\n[target.'cfg(unix)'.dependencies]\nx = { path = \"/x\" }\n",
		"crates/typed/Cargo.toml":  "[package]\nname = \"n\"\n[dependencies]\nx = { path = 1 }\n",
	}, map[string]string{
		"crates/inside/Cargo.toml": "[package]\nname = \"i\"\n[dependencies]\napp = { path = \"../app\" }\ntop = { path = \"../..\" }\nv = { path = \"../../vendor/../vendor/v\" }\n",
	})
}
