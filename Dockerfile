FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

# DejaVu Sans (regular, bold, oblique): the notices' pictures are drawn with it straight to
# pixels (pbem/mail/pictures.py); without it every picture takes resvg's slower path.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core fonts-dejavu-extra \
    && rm -rf /var/lib/apt/lists/*

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# Bytecode compiled once here (PYTHONDONTWRITEBYTECODE keeps every process from writing it): else
# each process compiles the platform's modules again as it starts, the pipe door's per message.
RUN python -m compileall -q pbem config games \
    && python manage.py collectstatic --noinput -v0 \
    && useradd --create-home --uid 1000 pbem \
    && mkdir -p /app/data && chown -R pbem /app/data

# Celery warns when run as root: the app runs as a normal user.
USER pbem
EXPOSE 8000 2525
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000"]
