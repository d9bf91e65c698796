"""Correct implementation of age_category_boundary/spec.req."""
import enum
class Category(enum.Enum):
    child = "child"
    adult = "adult"
    senior = "senior"
def category(age):
    if age < 18:
        return Category.child
    if age < 65:
        return Category.adult
    return Category.senior
