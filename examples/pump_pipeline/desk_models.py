"""Payload models of the example pipeline: plain pydantic models."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Question(BaseModel):
    text: str = Field(min_length=1)


class Query(BaseModel):
    topic: str = Field(min_length=1)
    max_results: int = Field(default=3, ge=1, le=10)


class Findings(BaseModel):
    topic: str
    facts: list[str]


class Notes(BaseModel):
    facts: list[str]


class Draft(BaseModel):
    text: str


class Answer(BaseModel):
    text: str
