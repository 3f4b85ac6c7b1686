"""The pages' own static files and the offline API docs: Swagger UI served from its Python package
(swagger-ui-bundle), never from a CDN."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from app.web.render import HERE

SWAGGER = "/static/swagger-ui"


def install(app: FastAPI) -> None:
    app.mount("/static/web", StaticFiles(directory=HERE / "static"), name="web-static")
    app.mount(SWAGGER, StaticFiles(directory=swagger_ui_path), name="swagger-ui")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} — API",
            swagger_js_url=f"{SWAGGER}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER}/swagger-ui.css",
            swagger_favicon_url=f"{SWAGGER}/favicon-32x32.png",
            swagger_ui_parameters={"persistAuthorization": False},
        )
