package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34InUsrLocalToolchainDirs: of a directory below
// /usr/local with a bin (an installed toolchain), only what lies at its
// top was judged; its directories were shown whole, as a vendor's SDK's
// are. A server an administrator unpacked there keeps its settings in
// them: Tomcat's conf/tomcat-users.xml with the manager's password,
// Kafka's config/client.properties with its SASL password, and a
// clone's remote token below its top (plugins/x/.git/config) were
// readable inside. The attack, from inside: read them. Proof: none is
// inside, and --dry-run names them; what the servers run with (their
// programs, a settings file holding none, a jar) and a vendor's
// toolchain (Go) still are.
func TestReplayReview34InUsrLocalToolchainDirs(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "R34usrlocal"
	stage := filepath.Join(h.Base, "usr-local")
	h.Write(filepath.Join(stage, "tomcat", "bin", "catalina.sh"), "#!/bin/sh\necho R34-CATALINA\n")
	h.Write(filepath.Join(stage, "tomcat", "conf", "tomcat-users.xml"), "<tomcat-users>\n  <user username=\"admin\" password=\""+secret+"Tc9\" roles=\"manager-gui\"/>\n</tomcat-users>\n")
	h.Write(filepath.Join(stage, "tomcat", "conf", "server.xml"), "<Server port=\"8005\" shutdown=\"SHUTDOWN\"><!-- R34-SERVER --></Server>\n")
	h.Write(filepath.Join(stage, "tomcat", "lib", "catalina.jar"), "PK\x03\x04\x00\x00R34-JAR\x00")
	h.Write(filepath.Join(stage, "kafka", "bin", "kafka-topics.sh"), "#!/bin/sh\necho R34-KAFKA\n")
	h.Write(filepath.Join(stage, "kafka", "config", "client.properties"), "security.protocol=SASL_SSL\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\" password=\""+secret+"Kf9\";\n")
	h.Write(filepath.Join(stage, "tools", "bin", "run"), "#!/bin/sh\necho R34-TOOLS\n")
	h.Write(filepath.Join(stage, "tools", "plugins", "x", ".git", "config"), "[remote \"origin\"]\n\turl = https://ci:"+secret+"Git@git.corp/x.git\n")
	h.Write(filepath.Join(stage, "tools", "plugins", "x", ".git", "HEAD"), "ref: refs/heads/main\n")
	h.Write(filepath.Join(stage, "go", "bin", "go"), "\x7fELF\x02\x01\x01\x00R34-GO\x00")
	h.Write(filepath.Join(stage, "go", "go.env"), "GOPROXY=https://proxy.golang.org,direct\n")
	h.Write(filepath.Join(stage, "go", "src", "fmt", "print.go"), "package fmt // R34-SRC\n")
	filepath.WalkDir(stage, func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.IsDir() || filepath.Base(filepath.Dir(p)) == "bin") {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		return h.RunOver(stage, "/usr/local", proj, name, args...)
	}
	if host := run("cat", "/usr/local/tomcat/conf/tomcat-users.xml"); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged file on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -ra "+secret+" /usr/local; grep -rah R34- /usr/local | tr -d '\\000'; /usr/local/tomcat/bin/catalina.sh; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in an installed server's directories below /usr/local is readable inside")
	}
	for _, want := range []string{"R34-CATALINA", "R34-SERVER", "R34-JAR", "R34-KAFKA", "R34-TOOLS", "R34-GO", "R34-SRC"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want what an installed toolchain runs with (%s)", want)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	for _, p := range []string{"/usr/local/tomcat/conf/tomcat-users.xml", "/usr/local/kafka/config/client.properties", "/usr/local/tools/plugins/x/.git"} {
		if !strings.Contains(dry, p) {
			t.Errorf("--dry-run does not name %s", p)
		}
	}
	if strings.Contains(dry, secret) {
		t.Errorf("--dry-run shows a credential")
	}
}
