"""CMMLU's 67 subjects: Chinese name and subcategories, and the subcategory -> category map.

Written after CMMLU's ``src/categories.py`` (a name table, not data). A subject
can sit in two categories (e.g. 古汉语 is Social Science and China specific);
the first is the subject's ``group``.
"""

from __future__ import annotations

SUBJECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "agronomy": ("农学", ("other",)),
    "anatomy": ("解剖学", ("biology",)),
    "ancient_chinese": ("古汉语", ("linguistics", "china specific")),
    "arts": ("艺术学", ("arts",)),
    "astronomy": ("天文学", ("physics",)),
    "business_ethics": ("商业伦理", ("business",)),
    "chinese_civil_service_exam": ("中国公务员考试", ("politics", "china specific")),
    "chinese_driving_rule": ("中国驾驶规则", ("other", "china specific")),
    "chinese_food_culture": ("中国饮食文化", ("culture", "china specific")),
    "chinese_foreign_policy": ("中国外交政策", ("politics", "china specific")),
    "chinese_history": ("中国历史", ("history", "china specific")),
    "chinese_literature": ("中国文学", ("literature", "china specific")),
    "chinese_teacher_qualification": ("中国教师资格", ("education", "china specific")),
    "clinical_knowledge": ("临床知识", ("other",)),
    "college_actuarial_science": ("大学精算学", ("math",)),
    "college_education": ("大学教育学", ("education",)),
    "college_engineering_hydrology": ("大学工程水文学", ("engineering",)),
    "college_law": ("大学法律", ("law",)),
    "college_mathematics": ("大学数学", ("math",)),
    "college_medical_statistics": ("大学医学统计", ("statistics",)),
    "college_medicine": ("大学医学", ("other",)),
    "computer_science": ("计算机科学", ("computer science",)),
    "computer_security": ("计算机安全", ("other",)),
    "conceptual_physics": ("概念物理学", ("physics",)),
    "construction_project_management": ("建设工程管理", ("other", "china specific")),
    "economics": ("经济学", ("economics",)),
    "education": ("教育学", ("education",)),
    "electrical_engineering": ("电气工程", ("engineering",)),
    "elementary_chinese": ("小学语文", ("linguistics", "china specific")),
    "elementary_commonsense": ("小学常识", ("other", "china specific")),
    "elementary_information_and_technology": ("小学信息技术", ("other",)),
    "elementary_mathematics": ("初等数学", ("math",)),
    "ethnology": ("民族学", ("culture", "china specific")),
    "food_science": ("食品科学", ("other",)),
    "genetics": ("遗传学", ("biology",)),
    "global_facts": ("全球事实", ("global",)),
    "high_school_biology": ("高中生物", ("biology",)),
    "high_school_chemistry": ("高中化学", ("chemistry",)),
    "high_school_geography": ("高中地理", ("geography",)),
    "high_school_mathematics": ("高中数学", ("math",)),
    "high_school_physics": ("高中物理学", ("physics",)),
    "high_school_politics": ("高中政治", ("politics", "china specific")),
    "human_sexuality": ("人类性行为", ("other",)),
    "international_law": ("国际法学", ("law",)),
    "journalism": ("新闻学", ("sociology",)),
    "jurisprudence": ("法理学", ("law",)),
    "legal_and_moral_basis": ("法律与道德基础", ("other",)),
    "logical": ("逻辑学", ("philosophy",)),
    "machine_learning": ("机器学习", ("computer science",)),
    "management": ("管理学", ("business",)),
    "marketing": ("市场营销", ("business",)),
    "marxist_theory": ("马克思主义理论", ("philosophy",)),
    "modern_chinese": ("现代汉语", ("linguistics", "china specific")),
    "nutrition": ("营养学", ("other",)),
    "philosophy": ("哲学", ("philosophy",)),
    "professional_accounting": ("专业会计", ("business",)),
    "professional_law": ("专业法学", ("law",)),
    "professional_medicine": ("专业医学", ("other",)),
    "professional_psychology": ("专业心理学", ("psychology",)),
    "public_relations": ("公共关系", ("politics",)),
    "security_study": ("安全研究", ("politics",)),
    "sociology": ("社会学", ("culture",)),
    "sports_science": ("体育学", ("other",)),
    "traditional_chinese_medicine": ("中医中药", ("other", "china specific")),
    "virology": ("病毒学", ("biology",)),
    "world_history": ("世界历史", ("history",)),
    "world_religions": ("世界宗教", ("global",)),
}
"""Subject key (the CSV's file name) -> (Chinese name, subcategories)."""

CATEGORIES: dict[str, tuple[str, ...]] = {
    "STEM": ("physics", "chemistry", "biology", "computer science", "math", "engineering", "statistics"),
    "Humanities": ("history", "philosophy", "law", "arts", "literature", "global"),
    "Social Science": (
        "linguistics",
        "business",
        "politics",
        "culture",
        "economics",
        "geography",
        "psychology",
        "education",
        "sociology",
    ),
    "Other": ("other",),
    "China specific": ("china specific",),
}
"""Category -> the subcategories it gathers."""


def categories_of(subcategories: tuple[str, ...]) -> tuple[str, ...]:
    """The categories of a subject, in the order of its subcategories, without repeats."""
    found: list[str] = []
    for sub in subcategories:
        for category, members in CATEGORIES.items():
            if sub in members and category not in found:
                found.append(category)
    return tuple(found)
