"""Subtly wrong: 65 is counted as adult (<= instead of <)."""
# expect-fail: category.ensures
import enum
class Category(enum.Enum):
    child = "child"
    adult = "adult"
    senior = "senior"
def category(age):
    if age < 18:
        return Category.child
    if age <= 65:
        return Category.adult
    return Category.senior
