"""HTML the app renders: the main page's estimate, the analysis tables, the fact-check page, the first static answer."""
