package secrets

import (
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34InXMLAttributeProperties: the judges read XML's
// setting as a Hadoop property (<name>, then <value> on the next line) or
// an element named for the credential (<password>…</password>). XML gives
// one more ways: Spring's <property name="password" value="…"/> in an
// applicationContext.xml, Tomcat's <Environment name="dbPassword"
// value="…"/> in context.xml, a web.xml's <param-name> and <param-value>,
// Java's properties in XML (<entry key="…">), and Hadoop's own with a
// <description> between the name and the value: each was readable inside
// below /usr/local/tomcat, a toolchain whose directories are judged. The
// attack, from inside: read them. Proof: none is inside and --dry-run
// names them; the same files' settings that hold none, in files of their
// own, still are, and so is the program.
func TestReplayReview34InXMLAttributeProperties(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "R34xml"
	stage := filepath.Join(h.Base, "usr-local")
	tomcat := filepath.Join(stage, "tomcat")
	h.Write(filepath.Join(tomcat, "bin", "catalina.sh"), "#!/bin/sh\necho R34-CATALINA\n")
	files := map[string]string{
		"conf/context.xml": "<Context>\n  <Environment name=\"dbPassword\" value=\"" + secret + "Env\" type=\"java.lang.String\"/>\n</Context>\n",
		"webapps/app/WEB-INF/applicationContext.xml": "<beans>\n  <bean id=\"ds\" class=\"org.apache.commons.dbcp2.BasicDataSource\">\n" +
			"    <property name=\"url\" value=\"jdbc:postgresql://db/app\"/>\n    <property name=\"username\" value=\"app\"/>\n    <property name=\"password\" value=\"" + secret + "Spring\"/>\n  </bean>\n</beans>\n",
		"webapps/app/WEB-INF/web.xml": "<web-app>\n  <context-param>\n    <param-name>db.password</param-name>\n    <param-value>" + secret + "Param</param-value>\n  </context-param>\n</web-app>\n",
		"conf/app.properties.xml":     "<properties>\n  <entry key=\"smtp.user\">app</entry>\n  <entry key=\"smtp.password\">" + secret + "Entry</entry>\n</properties>\n",
		"conf/core-site.xml":          "<configuration>\n  <property>\n    <name>fs.s3a.secret.key</name>\n    <description>the bucket's key</description>\n    <value>" + secret + "Described</value>\n  </property>\n</configuration>\n",
		"conf/server.xml":             "<Server port=\"8005\">\n  <!-- R34-SERVER -->\n  <Connector port=\"8080\" protocol=\"HTTP/1.1\"/>\n</Server>\n",
		"webapps/ok/WEB-INF/web.xml": "<web-app>\n  <!-- R34-WEBXML -->\n  <context-param>\n    <param-name>contextConfigLocation</param-name>\n    <param-value>/WEB-INF/app.xml</param-value>\n  </context-param>\n" +
			"  <login-config><auth-method>BASIC</auth-method></login-config>\n  <init-param><param-name>keyStoreType</param-name><param-value>JKS</param-value></init-param>\n</web-app>\n",
		"webapps/ok/WEB-INF/login.xml": "<form>\n  <!-- R34-LOGIN -->\n  <input name=\"password\" value=\"\"/>\n  <property name=\"password\" value=\"${DB_PASSWORD}\"/>\n  <option name=\"SHOW_PASSWORD\" value=\"false\"/>\n</form>\n",
	}
	for name, content := range files {
		h.Write(filepath.Join(tomcat, name), content)
	}
	usrLocalStaged{
		stage: stage, secret: secret, hostFile: "/usr/local/tomcat/conf/context.xml",
		script: "exec 2>&1; grep -rao '" + secret + "[A-Za-z]*' /usr/local; grep -rah R34- /usr/local; /usr/local/tomcat/bin/catalina.sh; true",
		where:  "in an XML setting below /usr/local",
		want:   []string{"R34-SERVER", "R34-WEBXML", "R34-LOGIN", "R34-CATALINA"},
		hidden: []string{"/usr/local/tomcat/conf/context.xml", "/usr/local/tomcat/webapps/app/WEB-INF/applicationContext.xml", "/usr/local/tomcat/webapps/app/WEB-INF/web.xml", "/usr/local/tomcat/conf/app.properties.xml", "/usr/local/tomcat/conf/core-site.xml"},
	}.check(t, h)
}
