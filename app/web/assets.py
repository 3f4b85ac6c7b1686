"""The pages' own static files and the offline API docs: Swagger UI served from its Python package
(swagger-ui-bundle), never from a CDN, started by a static script of ours (``static/docs.js``): the
pages' Content-Security-Policy admits no inline script (app/api/middleware.py)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from app.web.render import HERE, env

SWAGGER = "/static/swagger-ui"


def install(app: FastAPI) -> None:
    app.mount("/static/web", StaticFiles(directory=HERE / "static"), name="web-static")
    app.mount(SWAGGER, StaticFiles(directory=swagger_ui_path), name="swagger-ui")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        html = env.get_template("docs.html").render(
            title=f"{app.title} — API", swagger=SWAGGER, openapi_url=app.openapi_url or "/openapi.json"
        )
        return HTMLResponse(html)
