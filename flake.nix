{
  description = "claudebox: run Claude Code in a bubblewrap sandbox with per-project history";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      # The Linux systems Claude Code supports.
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      version = self.shortRev or self.dirtyShortRev or "dev";
    in
    {
      packages = forAllSystems (pkgs: {
        default = pkgs.buildGoModule {
          pname = "claudebox";
          inherit version;
          src = ./.;
          # The NAR hash of `go mod vendor`; a test recomputes it from go.sum.
          vendorHash = "sha256-0qp7QwtYzu2/U+H64XLwBTk9u1AMlNRIMQ+72DE/pUs=";
          ldflags = [ "-s" "-w" "-X main.version=${version}" ];
          nativeBuildInputs = [ pkgs.makeWrapper ];
          # The real-sandbox tests need user namespaces, which the build sandbox lacks.
          checkFlags = [ "-short" ];
          nativeCheckInputs = [ pkgs.git ];
          postInstall = ''
            wrapProgram $out/bin/claudebox \
              --prefix PATH : ${pkgs.lib.makeBinPath [ pkgs.bubblewrap pkgs.git ]}
          '';
          meta = {
            description = "Run Claude Code in a bubblewrap sandbox with per-project history";
            mainProgram = "claudebox";
            platforms = systems;
          };
        };
      });

      apps = forAllSystems (pkgs: {
        default = {
          type = "app";
          program = "${self.packages.${pkgs.system}.default}/bin/claudebox";
        };
      });
    };
}
