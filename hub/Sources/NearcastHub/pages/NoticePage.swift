/// The hub's small notice pages (`/j/CODE` when its code is not on a screen now, or cannot let a
/// phone in) and the speaker's page (`TalkUploadPage`): their stylesheet, served as a file
/// (`StatusController`) because the hub's Content-Security-Policy (`SecurityHeaders`) allows no
/// inline style, `style=""` included.
enum NoticePage {
    static let stylePath = "/hub-notice.css"

    static let css = "body { font: 18px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem; }\n"
        // A speaker's figures (`TalkFiguresSection`): the table of slides.
        + "table { border-collapse: collapse; } th, td { padding: 0 0.4rem; text-align: right; } thead th { border-bottom: 1px solid #ccc; }\n"
}
