// What a page bundles: @clube/browser, resolved from the installed tarball.
import { createClubeBrowser } from "@clube/browser";

window.clube = createClubeBrowser({ baseUrl: location.origin, getToken: async () => (await fetch("/clube-token")).text() });
